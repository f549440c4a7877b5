import { idParamOptions } from './id-param';

describe('idParamOptions', () => {
  it.each([
    ['blog', undefined, 'id', 'The blog id: decimal digits, no sign or leading zero.'],
    ['comment', 'commentId', 'commentId', 'The comment id: decimal digits, no sign or leading zero.'],
  ])('documents the %s id as parameter %p: int4, 1 to 2147483647', (resource, name, expectedName, description) => {
    expect(idParamOptions(resource, name)).toEqual({
      name: expectedName,
      description,
      schema: { type: 'integer', minimum: 1, maximum: 2147483647, example: 1 },
    });
  });
});
