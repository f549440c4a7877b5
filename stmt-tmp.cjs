const { blogListStatement } = require('./dist/blogs/blog-list-statement.js');
const s = blogListStatement({ filters: { author: 'Author 7' }, sort: '-createdAt', withContent: true, limit: 10, offset: 0, now: new Date(), status: 'published' });
console.log(s.statement.text); console.log(JSON.stringify(s.values));
