// Preload (`node --require`) for start-up tests: at exit, writes the paths of every module loaded with require() to
// the file named by LOADED_MODULES_FILE, as a JSON array.
'use strict';
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache)));
});
