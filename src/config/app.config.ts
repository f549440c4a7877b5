import { ConfigType, registerAs } from '@nestjs/config';
import { loadAppConfig } from './environment';

/**
 * The application's configuration namespace. Inject it with
 * `@Inject(appConfig.KEY) config: AppConfigType`; it is validated once, when the first provider
 * that needs it is created, and never re-read from `process.env` afterwards.
 */
export const appConfig = registerAs('app', () => loadAppConfig(process.env));

/** Type of the object injected under `appConfig.KEY`. */
export type AppConfigType = ConfigType<typeof appConfig>;
