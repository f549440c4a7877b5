import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The answer kept for a key: its status, the headers that replay with it and the JSON body. */
export interface KeptAnswer {
  readonly status: number;
  readonly location?: string;
  readonly etag?: string;
  readonly body: unknown;
}

/**
 * An `Idempotency-Key` of a token's `sub`: the request it was first used with (method, path and body, as a SHA-256
 * `fingerprint`) and, once answered, the answer to replay until `expiresAt`. In flight while `status` is null.
 */
@Entity({ name: 'idempotency_keys' })
@Index('IDX_idempotency_keys_expires_at', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'owner_sub', type: 'text', primaryKeyConstraintName: 'PK_idempotency_keys' })
  ownerSub!: string;

  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_idempotency_keys' })
  key!: string;

  @Column({ type: 'bytea' })
  fingerprint!: Buffer;

  /** The kept answer's HTTP status; null while the first request runs. */
  @Column({ type: 'integer', nullable: true })
  status!: number | null;

  @Column({ type: 'json', nullable: true })
  answer!: KeptAnswer | null;

  /** Until when a request in flight holds the key; past it, the key counts as free (its process died). */
  @Column({ name: 'locked_until', type: 'timestamptz', precision: 3 })
  lockedUntil!: Date;

  /** 24 hours after the first use: from then on the key is free again. */
  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3 })
  expiresAt!: Date;
}
