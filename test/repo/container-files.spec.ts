import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function dockerfileInstructions(): { readonly keyword: string; readonly args: string }[] {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const instructions = dockerfileInstructions();
  const args = (keyword: string): string[] => instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
  const lastStage = instructions.slice(instructions.map((i) => i.keyword).lastIndexOf('FROM'));
  const inLastStage = (keyword: string): string[] => lastStage.filter((i) => i.keyword === keyword).map((i) => i.args);

  it('is multi-stage on a Node 24 image', () => {
    const image = /^NODE_IMAGE=(\S+)/.exec(args('ARG').find((a) => a.startsWith('NODE_IMAGE=')) ?? '')?.[1];
    expect(image).toMatch(/^node:24-/);
    expect(args('FROM').length).toBeGreaterThanOrEqual(2);
  });

  it('builds with npm ci, and the final stage gets production dependencies only, from their own stage', () => {
    expect(args('RUN').some((a) => a.includes('npm ci'))).toBe(true);
    // FROM … AS name: the stage whose npm ci omits dev dependencies is where node_modules comes from.
    const stages = instructions.reduce<{ name: string; run: string[] }[]>((all, i) => {
      if (i.keyword === 'FROM') all.push({ name: /\bAS\s+(\S+)/i.exec(i.args)?.[1] ?? '', run: [] });
      else if (i.keyword === 'RUN') all[all.length - 1].run.push(i.args);
      return all;
    }, []);
    const production = stages.find((stage) => stage.run.some((a) => /npm ci\b.*--omit=dev/.test(a)));
    expect(production?.name).toBeTruthy();
    expect(inLastStage('COPY')).toContainEqual(
      expect.stringMatching(new RegExp(`^--from=${production?.name} \\S*node_modules`)),
    );
    expect(inLastStage('COPY').some((a) => a.startsWith('--from=build'))).toBe(true);
    expect(inLastStage('RUN').some((a) => a.includes('npm ci'))).toBe(false);
  });

  it('runs as a non-root user with NODE_ENV=production, listening on every interface (HOST=0.0.0.0)', () => {
    const user = inLastStage('USER').pop();
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(inLastStage('ENV').join(' ')).toMatch(/NODE_ENV=production/);
    expect(inLastStage('ENV').join(' ')).toMatch(/\bHOST=0\.0\.0\.0\b/); // reachable through the published port
  });

  it('has a HEALTHCHECK on /health/live through node (no curl in slim images) and an exec-form CMD', () => {
    const healthcheck = inLastStage('HEALTHCHECK').pop() ?? '';
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*\/health\/live/);
    const cmd = inLastStage('CMD').pop() ?? '';
    expect(JSON.parse(cmd)).toEqual(['node', 'dist/main.js']);
  });
});

describe('docker-compose.yml', () => {
  interface Service {
    readonly image?: string;
    readonly build?: unknown;
    readonly environment?: Record<string, string>;
    readonly depends_on?: Record<string, { condition: string }>;
    readonly healthcheck?: unknown;
    readonly volumes?: string[];
  }
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, Service>;
    volumes?: Record<string, unknown>;
  };

  it('is valid against the Compose Specification (scripts/validate-compose.mjs)', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'validate-compose.mjs')], { encoding: 'utf8' });

    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('runs the service after PostgreSQL 16 (named volume) and Redis report healthy', () => {
    const { api, db, redis } = compose.services;
    expect(api.build).toBeDefined();
    expect(api.depends_on).toEqual({
      db: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(db.image).toBe('postgres:16');
    expect(db.healthcheck).toBeDefined();
    const volume = db.volumes?.[0]?.split(':')[0] ?? '';
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(redis.image).toMatch(/^redis:/);
    expect(redis.healthcheck).toBeDefined();
  });

  it('configures the service through environment only', () => {
    const env = compose.services.api.environment ?? {};
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'JWT_SECRET', 'CURSOR_SECRET', 'REDIS_URL']),
    );
  });
});
