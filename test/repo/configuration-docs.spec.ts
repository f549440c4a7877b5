import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { environmentVariableNames } from '../support/environment-variables';

const ROOT = join(__dirname, '..', '..');

/** The variables named in the first column of the table under README's "## Configuration". */
function readmeVariables(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
  return [...new Set(names)].sort();
}

/** The variables assigned in `.env.example` (commented lines aside). */
function envExampleVariables(): string[] {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  return [...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]).sort();
}

describe('configuration documentation matches the schema (EnvironmentVariables)', () => {
  const schema = environmentVariableNames();

  it('the schema is read (sanity)', () => {
    expect(schema).toEqual(expect.arrayContaining(['NODE_ENV', 'PORT', 'DATABASE_URL', 'JWT_SECRET', 'CURSOR_SECRET']));
  });

  it("README's configuration table lists exactly the schema's variables", () => {
    expect(readmeVariables()).toEqual(schema);
  });

  it('.env.example lists exactly the schema variables, each once', () => {
    const names = envExampleVariables();
    expect(names).toEqual(schema);
    expect(new Set(names).size).toBe(names.length);
  });
});
