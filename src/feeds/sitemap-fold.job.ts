import { cleanUpJob } from '../jobs/job-queue';
import { FeedsRepository } from './feeds.repository';

/** The queue of the sitemap summary's fold. */
export const SITEMAP_FOLD_QUEUE = 'sitemap-blocks-fold';

/**
 * Each minute, sets anew the newest `updated_at` of the blocks of `sitemap_blocks` that a delete made stale, so that
 * the sitemap index reads them from the summary again, not from their blogs (docs/architecture.md, "Feeds and sitemaps").
 */
export const SitemapFoldJob = cleanUpJob(
  { name: SITEMAP_FOLD_QUEUE, schedule: '* * * * *', pollingIntervalSeconds: 15 },
  FeedsRepository,
  (feeds) => feeds.foldStaleBlocks(),
);
