import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { authConfig } from '../config/auth.config';
import { mintToken } from './token-minter';

/** Subject and lifetime of the token logged when the service runs with a generated secret: an ordinary user, no scope. */
const DEV_TOKEN = { sub: 'dev', ttl: '12h' } as const;

/** Logs a ready-to-use token when the secret was generated (no one else can mint for it). */
@Injectable()
export class DevTokenAnnouncer implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {}

  onApplicationBootstrap(): void {
    const { secret, secretGenerated } = this.config.jwt;
    if (!secretGenerated || secret === undefined) return;
    const token = mintToken({ ...this.config.jwt, secret }, DEV_TOKEN);
    this.logger.warn(
      `JWT_SECRET is not set: using a random secret for this process. ` +
        `Development token (sub=${DEV_TOKEN.sub}, no scope, valid ${DEV_TOKEN.ttl}; for others, set JWT_SECRET and run ` +
        `\`npm run token -- --sub <name> [--scope "<scope> …"]\`):\n${token}`,
    );
  }
}
