import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createHash, createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { cursorConfig } from '../../config/cursor.config';
import { ValidationProblemException } from '../filters/problem-types';

/** Longest base64url payload of a cursor, in characters. */
const MAX_PAYLOAD_LENGTH = 2000;

/** Length of a base64url HMAC-SHA256 (32 bytes), in characters. */
const MAC_LENGTH = 43;

/** Longest cursor, in characters: payload, `.` and MAC. */
export const MAX_CURSOR_LENGTH = MAX_PAYLOAD_LENGTH + 1 + MAC_LENGTH;

/** A cursor: base64url payload, `.`, base64url HMAC-SHA256 of the payload text. */
export const CURSOR_SYNTAX = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_PAYLOAD_LENGTH}}\\.[A-Za-z0-9_-]{${MAC_LENGTH}}$`);

/**
 * Opaque list cursors (docs/architecture.md, "Cursors"): a JSON payload signed with the `cursor` namespace's key.
 * What the payload holds, and its checks, are the list's own.
 */
@Injectable()
export class CursorSigner {
  /** A `KeyObject`: HMAC with a `Buffer` key builds one per call, 8× the cost of the MAC (docs/performance.md). */
  private readonly key: KeyObject;

  constructor(@Inject(cursorConfig.KEY) config: ConfigType<typeof cursorConfig>) {
    this.key = createSecretKey(config.key);
  }

  /** `payload` as JSON, base64url, `.`, and its MAC. */
  sign(payload: object): string {
    const text = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${text}.${this.mac(text)}`;
  }

  /**
   * The payload `cursor` carries.
   * @throws BadRequestException naming `cursor` when this service did not sign it, or it was changed.
   */
  verify(cursor: string): unknown {
    const [text, mac] = cursor.split('.');
    const expected = CURSOR_SYNTAX.test(cursor) ? this.mac(text) : '';
    // Compared as text, so that no second spelling of the same MAC bytes passes.
    if (expected === '' || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) {
      throw ValidationProblemException.parameter(
        'cursor',
        'cursor is not a nextCursor of this service, or it was changed',
        true,
      );
    }
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}

/** 128 bits of SHA-256 over `values` as JSON (undefined as null), base64url: binds a cursor to its list's query. */
export function queryDigest(values: readonly unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(values.map((value) => value ?? null)))
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}
