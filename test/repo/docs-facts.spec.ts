import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Facts of the code that the documentation states in words, checked against the code.
const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('documentation facts', () => {
  it('docs/operations.md: the PostgreSQL example creates the database before the service connects to it', () => {
    const block = /^## Running\n+```bash\n([\s\S]*?)```/m.exec(read('docs/operations.md'))?.[1] ?? '';
    const database = /DATABASE_URL=postgres:\/\/[^ ]*\/(\w+) /.exec(block)?.[1];

    expect(database).toBeDefined();
    const created = block.search(new RegExp(`^createdb .*\\b${database}\\b`, 'm'));
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(block.indexOf('DATABASE_URL='));
  });
});
