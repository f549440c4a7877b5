import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How far the events are purged from one cache of `CACHE_PURGE_URLS`, and when a refused purge is tried again. */
@Entity({ name: 'cache_purges' })
export class CachePurge {
  /** The cache's base URL, as the WHATWG URL parser writes it (`http://varnish/`). */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_cache_purges' })
  url!: string;

  /** int8: the id of the last event whose keys this cache has purged. */
  @Column({ name: 'purged_through', type: 'bigint' })
  purgedThrough!: string;

  /** Purges refused (or unanswered) in a row since the last one done. */
  @Column({ type: 'integer', default: 0 })
  failures!: number;

  /** Not before this instant is the next purge tried, after {@link failures} refusals; null: at once. */
  @Column({ name: 'retry_at', type: 'timestamptz', precision: 3, nullable: true })
  retryAt!: Date | null;

  /** Until this instant one process purges this cache (a process killed meanwhile: then another may); null: none. */
  @Column({ name: 'leased_until', type: 'timestamptz', precision: 3, nullable: true })
  leasedUntil!: Date | null;
}
