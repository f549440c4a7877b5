import { JobQueue } from '../jobs/job-queue';
import { FeedsRepository } from './feeds.repository';
import { SITEMAP_FOLD_QUEUE, SitemapFoldJob } from './sitemap-fold.job';

describe('SitemapFoldJob', () => {
  it('defines a clean-up each minute that folds the stale blocks', async () => {
    const jobs = { defineCleanUp: jest.fn() };
    const feeds = { foldStaleBlocks: jest.fn().mockResolvedValue(2) };
    await SitemapFoldJob.useFactory(jobs, feeds);

    expect(SitemapFoldJob.inject).toEqual([JobQueue, FeedsRepository]);
    expect(jobs.defineCleanUp).toHaveBeenCalledWith(
      expect.objectContaining({ name: SITEMAP_FOLD_QUEUE, schedule: '* * * * *' }),
    );
    const [[{ handle }]] = jobs.defineCleanUp.mock.calls as [[{ handle: () => Promise<void> }]];
    await handle();
    expect(feeds.foldStaleBlocks).toHaveBeenCalledTimes(1);
  });
});
