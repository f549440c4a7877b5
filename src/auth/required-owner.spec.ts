import { requiredOwner } from './required-owner';

const ADMIN = 'things:admin';

describe('requiredOwner', () => {
  it('is the principal itself without scopes', () => {
    expect(requiredOwner({ sub: 'alice', scopes: [] }, ADMIN)).toBe('alice');
  });

  it('is nobody (any owner) for a holder of the admin scope among other scopes', () => {
    expect(requiredOwner({ sub: 'root', scopes: ['other', ADMIN] }, ADMIN)).toBeUndefined();
  });

  it.each([['things:administrator'], ['things:admin:extra'], ['THINGS:ADMIN'], ['things'], ['admin'], ['blogs:admin']])(
    'treats the scope %s as no admin scope',
    (scope) => {
      expect(requiredOwner({ sub: 'bob', scopes: [scope] }, ADMIN)).toBe('bob');
    },
  );
});
