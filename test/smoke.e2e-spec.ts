import { createTestApp, TestApp } from './support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates and reads a blog', async () => {
    const created = await t.http
      .post('/api/v1/blogs')
      .set('Authorization', `Bearer ${t.token('alice')}`)
      .send({ title: 't', content: 'c', author: 'a' })
      .expect(201);
    expect(created.headers.location).toBe(`/api/v1/blogs/${created.body.id}`);
    const read = await t.http.get(`/api/blogs/${created.body.id}`).expect(200);
    expect(read.body).toEqual(created.body);
  });
});
