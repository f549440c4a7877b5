import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { hkdfSync, randomBytes } from 'node:crypto';
import {
  emptyToUndefined,
  invalidConfiguration,
  NodeEnvVariables,
  readEnvironment,
  VariableNames,
} from './environment';

class CursorVariables extends NodeEnvVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly CURSOR_SECRET?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_SECRET?: string;
}

/** Variables of the `cursor` namespace. */
export const CURSOR_VARIABLES: VariableNames<CursorVariables> = {
  NODE_ENV: true,
  CURSOR_SECRET: true,
  JWT_SECRET: true,
};

/** Shortest secret a cursor key is taken or derived from, in UTF-8 bytes: the HMAC-SHA256 output length. */
export const MIN_CURSOR_SECRET_BYTES = 32;

/** HKDF `info` (RFC 5869 §2.3) of the cursor key derived from `JWT_SECRET`: no other use of that secret shares it. */
export const CURSOR_KEY_INFO = 'blog-list-cursor';

/** How list cursors are signed. */
export interface CursorConfig {
  /** The HMAC-SHA256 key, at least 32 bytes. */
  readonly key: Buffer;
  /** Where the key comes from: `CURSOR_SECRET` itself, derived from `JWT_SECRET`, or random for this process. */
  readonly keySource: 'CURSOR_SECRET' | 'JWT_SECRET' | 'random';
}

/**
 * The cursor key: `CURSOR_SECRET`, else HKDF-SHA256 of `JWT_SECRET`, else (development and test only) random.
 * @throws ConfigValidationError naming the variable when a secret is shorter than 32 bytes, or when
 *   production has neither secret (every replica must verify the cursors of the others).
 */
export function loadCursorConfig(env: NodeJS.ProcessEnv): CursorConfig {
  const vars = readEnvironment(CursorVariables, CURSOR_VARIABLES, env);
  for (const name of ['CURSOR_SECRET', 'JWT_SECRET'] as const) {
    const secret = vars[name];
    if (secret !== undefined && Buffer.byteLength(secret, 'utf8') < MIN_CURSOR_SECRET_BYTES) {
      invalidConfiguration(`${name} must be at least ${MIN_CURSOR_SECRET_BYTES} bytes long`);
    }
  }
  if (vars.CURSOR_SECRET !== undefined)
    return { key: Buffer.from(vars.CURSOR_SECRET, 'utf8'), keySource: 'CURSOR_SECRET' };
  if (vars.JWT_SECRET !== undefined) {
    const key = hkdfSync('sha256', vars.JWT_SECRET, Buffer.alloc(0), CURSOR_KEY_INFO, MIN_CURSOR_SECRET_BYTES);
    return { key: Buffer.from(key), keySource: 'JWT_SECRET' };
  }
  if (vars.NODE_ENV === 'production') {
    invalidConfiguration(
      'CURSOR_SECRET is required when NODE_ENV=production and JWT_SECRET is unset, so that every replica accepts the same list cursors',
    );
  }
  return { key: randomBytes(MIN_CURSOR_SECRET_BYTES), keySource: 'random' };
}

/** The `cursor` namespace: `@Inject(cursorConfig.KEY) config: ConfigType<typeof cursorConfig>`. */
export const cursorConfig = registerAs('cursor', () => loadCursorConfig(process.env));
