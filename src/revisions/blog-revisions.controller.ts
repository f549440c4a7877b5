import { Controller, Get, HttpCode, HttpStatus, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { blogEntityTag } from '../blogs/blog-status';
import { BlogResponse, toBlogResponse } from '../blogs/dto/blog-response.dto';
import { parseWritePreconditions, PreconditionHeaders, Preconditions } from '../common/http/entity-tag-condition';
import { IdParam } from '../common/http/id-param.decorator';
import { NoBody } from '../common/http/json-body.decorator';
import { withEntityTag } from '../common/http/origin-freshness';
import { linkNextPage, listEnvelope } from '../common/paging/list-envelope';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { ListRevisionsQueryDto } from './dto/list-revisions-query.dto';
import {
  RevisionListResponse,
  RevisionResponse,
  toRevisionResponse,
  toRevisionSummary,
} from './dto/revision-response.dto';
import { blogRevisionsPath } from './revision-paths';
import { ApiGetRevision, ApiListRevisions, ApiRestoreRevision, ApiRevisions } from './revisions.api-docs';
import { RevisionsService } from './revisions.service';

/**
 * `/api/v1/blogs/:id/revisions`: a blog's revisions, for its owner or `blogs:admin` only (a bearer token; answers are
 * `no-store`, as every answer that is not a public read), and their restore.
 */
@Controller({ path: 'blogs', version: '1' })
@ApiRevisions()
export class BlogRevisionsController {
  constructor(private readonly revisions: RevisionsService) {}

  @Get(':id/revisions')
  @ApiListRevisions()
  async list(
    @IdParam('id') blogId: number,
    @Query() query: ListRevisionsQueryDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RevisionListResponse> {
    const page = await this.revisions.list(blogId, query, principal, new Date());
    linkNextPage(response, blogRevisionsPath(blogId), request.url, page.nextCursor);
    return listEnvelope(page, query.limit, toRevisionSummary);
  }

  @Get(':id/revisions/:version')
  @ApiGetRevision()
  async findOne(
    @IdParam('id') blogId: number,
    @IdParam('version') version: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RevisionResponse> {
    return toRevisionResponse(await this.revisions.findOne(blogId, version, principal, new Date()));
  }

  @Post(':id/revisions/:version/restore')
  @HttpCode(HttpStatus.OK)
  @NoBody()
  @Idempotent()
  @ApiRestoreRevision()
  async restore(
    @IdParam('id') blogId: number,
    @IdParam('version') version: number,
    @CurrentPrincipal() principal: Principal,
    @Preconditions() preconditions: PreconditionHeaders,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BlogResponse> {
    const now = new Date();
    const blog = await this.revisions.restore(blogId, version, principal, now, parseWritePreconditions(preconditions));
    return withEntityTag(response, blogEntityTag(blog, now), toBlogResponse(blog, now));
  }
}
