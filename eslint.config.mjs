// ESLint flat config: typescript-eslint's type-checked recommended rules for the TypeScript
// sources, with Prettier owning layout (eslint-config-prettier turns the layout rules off).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unusedVars = ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }];

export default tseslint.config(
  // The typed client's schema is generated (npm run client:generate); `client:check` type-checks it.
  {
    ignores: ['**/dist/', 'coverage/', 'data/', 'node_modules/', '.jest-results/', 'clients/typescript/src/schema.ts'],
  },
  eslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      // `type-is` and `fresh` ship no type declarations; their one use types the function it requires.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^type-is$', '^fresh$'] }],
      // Nest compares numeric statuses with its HttpStatus enum (whose values are the numbers).
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      // supertest's `res.body` and jest's asymmetric matchers are typed `any` by design.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // `expect(mock.method)` passes jest mocks unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
      // Async test doubles keep the async signature of what they replace.
      '@typescript-eslint/require-await': 'off',
      // Callback-to-promise adapters pass on whatever error the callback got.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
  {
    // Passport's `handleRequest` rethrows what the strategy raised, as it was raised.
    files: ['src/auth/jwt-auth.guard.ts'],
    rules: { '@typescript-eslint/only-throw-error': 'off' },
  },
  prettier,
);
