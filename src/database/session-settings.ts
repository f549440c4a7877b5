import type { DataSource } from 'typeorm';
import { SESSION_SETTINGS } from './data-source-options';

type SettingName = keyof typeof SESSION_SETTINGS;

/**
 * Where the server sessions `dataSource` gets differ from {@link SESSION_SETTINGS}: a timeout off (0) or longer than
 * the service's, or another `jit`; one `name=value (want …)` item each, none when they agree.
 */
export async function sessionSettingsDrift(dataSource: DataSource): Promise<string[]> {
  const rows = await dataSource.query<{ name: SettingName; setting: string }[]>(
    'SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])',
    [Object.keys(SESSION_SETTINGS)],
  );
  return rows.flatMap(({ name, setting }) => {
    const want = SESSION_SETTINGS[name];
    if (name === 'jit') return setting === want ? [] : [`jit=${setting} (want ${want})`];
    const ms = Number(setting);
    return ms > 0 && ms <= Number(want) ? [] : [`${name}=${setting} (want 1–${want} ms)`];
  });
}
