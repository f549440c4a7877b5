import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { clientAddressOf } from '../rate-limit/rate-limit.guard';
import { SharedCache } from '../shared-cache/shared-cache';
import { FeedQueryDto } from './dto/feed-query.dto';
import type { FeedFormat } from './feed-formats';
import { ApiFeed, ApiFeeds } from './feeds.api-docs';
import { FeedsService } from './feeds.service';
import { answerDocument } from './public-document';

/**
 * `/api/v1/feeds/blogs.{atom,rss,json}`: the live blogs as Atom 1.0, RSS 2.0 and JSON Feed 1.1, newest first, paged
 * by RFC 5005 `next` links; the same for every caller, a token adds nothing.
 */
@Controller({ path: 'feeds', version: '1' })
@ApiFeeds()
export class FeedsController {
  constructor(
    private readonly feeds: FeedsService,
    private readonly cache: SharedCache,
  ) {}

  @Get('blogs.atom')
  @ReadAccess()
  @ApiFeed('atom')
  atom(@Query() query: FeedQueryDto, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    return this.answer('atom', query, request, response);
  }

  @Get('blogs.rss')
  @ReadAccess()
  @ApiFeed('rss')
  rss(@Query() query: FeedQueryDto, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    return this.answer('rss', query, request, response);
  }

  @Get('blogs.json')
  @ReadAccess()
  @ApiFeed('json')
  json(@Query() query: FeedQueryDto, @Req() request: Request, @Res({ passthrough: true }) response: Response) {
    return this.answer('json', query, request, response);
  }

  /** The feed document of `format` for `query`, with its headers. */
  private async answer(format: FeedFormat, query: FeedQueryDto, request: Request, response: Response): Promise<string> {
    const document = await this.feeds.feed(format, query, new Date(), clientAddressOf(request));
    return answerDocument(this.cache, request, response, document);
  }
}
