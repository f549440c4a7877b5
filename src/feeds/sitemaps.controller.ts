import { Controller, Get, NotFoundException, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { canonicalIntegerValue, INT4_MAX } from '../common/canonical-integer';
import { clientAddressOf } from '../rate-limit/rate-limit.guard';
import { SharedCache } from '../shared-cache/shared-cache';
import { ApiSitemapFile, ApiSitemapIndex, ApiSitemaps } from './feeds.api-docs';
import { FeedsService } from './feeds.service';
import { answerDocument, answerStreamedDocument } from './public-document';

/** `/api/v1/sitemap.xml`: the sitemap index of the blog sitemap files (sitemaps.org 0.9). */
@Controller({ path: 'sitemap.xml', version: '1' })
@ApiSitemaps()
export class SitemapIndexController {
  constructor(
    private readonly feeds: FeedsService,
    private readonly cache: SharedCache,
  ) {}

  @Get()
  @ReadAccess()
  @ApiSitemapIndex()
  async index(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<string> {
    return answerDocument(this.cache, request, response, await this.feeds.sitemapIndex(new Date()));
  }
}

/** `/api/v1/sitemaps/blogs-<n>.xml`: the live blogs for search engines, by id (sitemaps.org 0.9). */
@Controller({ path: 'sitemaps', version: '1' })
@ApiSitemaps()
export class SitemapsController {
  constructor(
    private readonly feeds: FeedsService,
    private readonly cache: SharedCache,
  ) {}

  @Get('blogs-:n.xml')
  @ReadAccess()
  @ApiSitemapFile()
  async file(
    @Param('n') n: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | AsyncIterable<string>> {
    const number = canonicalIntegerValue(n);
    // A name that is no file's (`blogs-0.xml`, `blogs-01.xml`, past the ids' int4 range) is a path without a resource.
    if (number === undefined || number < 1 || number > INT4_MAX)
      throw new NotFoundException(`Sitemap file ${n} not found`);
    const document = await this.feeds.sitemapFile(number, new Date(), clientAddressOf(request));
    return answerStreamedDocument(this.cache, request, response, document);
  }
}
