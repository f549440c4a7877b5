import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { FeedsRepository } from './feeds.repository';

/** The queue of the sitemap summary's fold. */
export const SITEMAP_FOLD_QUEUE = 'sitemap-blocks-fold';

/**
 * Each minute, sets anew the newest `updated_at` of the blocks of `sitemap_blocks` that a delete made stale, so that
 * the sitemap index reads them from the summary again, not from their blogs (docs/architecture.md, "Feeds and sitemaps").
 */
@Injectable()
export class SitemapFoldJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly feeds: FeedsRepository,
  ) {}

  onModuleInit(): void {
    this.jobs.defineCleanUp({
      name: SITEMAP_FOLD_QUEUE,
      schedule: '* * * * *',
      pollingIntervalSeconds: 15,
      handle: async () => {
        await this.feeds.foldStaleBlocks();
      },
    });
  }
}
