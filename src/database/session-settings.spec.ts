import type { DataSource } from 'typeorm';
import { sessionSettingsDrift } from './session-settings';

/** A DataSource whose `pg_settings` rows are `settings`. */
function serverWith(settings: Record<string, string>): DataSource {
  const query = jest.fn(async (_sql: string, [names]: [string[]]) =>
    names.map((name) => ({ name, setting: settings[name] })),
  );
  return { query } as unknown as DataSource;
}

describe('sessionSettingsDrift', () => {
  it.each([
    [{ statement_timeout: '2000', idle_in_transaction_session_timeout: '5000', jit: 'off' }],
    [{ statement_timeout: '1500', idle_in_transaction_session_timeout: '1000', jit: 'off' }],
  ])('%p: none (the bounds of the service or shorter)', async (settings) => {
    await expect(sessionSettingsDrift(serverWith(settings))).resolves.toEqual([]);
  });

  it("PostgreSQL's defaults: every setting named, with what the service wants", async () => {
    const drift = await sessionSettingsDrift(
      serverWith({ statement_timeout: '0', idle_in_transaction_session_timeout: '0', jit: 'on' }),
    );

    expect(drift).toEqual([
      'statement_timeout=0 (want 1–2000 ms)',
      'idle_in_transaction_session_timeout=0 (want 1–5000 ms)',
      'jit=on (want off)',
    ]);
  });

  it('a longer timeout than the service wants is named', async () => {
    const drift = await sessionSettingsDrift(
      serverWith({ statement_timeout: '30000', idle_in_transaction_session_timeout: '5000', jit: 'off' }),
    );

    expect(drift).toEqual(['statement_timeout=30000 (want 1–2000 ms)']);
  });
});
