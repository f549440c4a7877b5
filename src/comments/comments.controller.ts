import { Controller, Delete, Get, HttpCode, HttpStatus, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { IdParam } from '../common/http/id-param.decorator';
import { JsonBody } from '../common/http/json-body.decorator';
import { versionedEntityTag } from '../common/http/versioned-entity-tag';
import { linkNextPage, listEnvelope } from '../common/paging/list-envelope';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { blogCommentsPath, COMMENTS_PATH } from './comment-paths';
import type { Comment } from './comment.entity';
import { ApiComments, ApiCreateComment, ApiDeleteComment, ApiGetComment, ApiListComments } from './comments.api-docs';
import { CommentsService } from './comments.service';
import { CommentListResponse, CommentResponse, toCommentResponse } from './dto/comment-response.dto';
import { CreateCommentDto } from './dto/create-comment.dto';
import { ListCommentsQueryDto } from './dto/list-comments-query.dto';

/**
 * `/api/v1/blogs/:id/comments` and `/api/v1/comments/:id`: reads as the blog's reads (public unless
 * `READS_REQUIRE_AUTH=true`), create and delete with a bearer token. A comment's answer has its strong `ETag`.
 */
@Controller({ version: '1' })
@ApiComments()
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get('blogs/:id/comments')
  @ReadAccess()
  @ApiListComments()
  async list(
    @IdParam('id') blogId: number,
    @Query() query: ListCommentsQueryDto,
    @CurrentPrincipal() principal: Principal | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentListResponse> {
    const page = await this.comments.list(blogId, query, principal, new Date());
    linkNextPage(response, blogCommentsPath(blogId), request.url, page.nextCursor);
    return listEnvelope(page, query.limit, toCommentResponse);
  }

  @Get('comments/:id')
  @ReadAccess()
  @ApiGetComment()
  async findOne(
    @IdParam('id') id: number,
    @CurrentPrincipal() principal: Principal | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentResponse> {
    return this.answer(await this.comments.findOne(id, principal, new Date()), response);
  }

  @Post('blogs/:id/comments')
  @HttpCode(HttpStatus.CREATED)
  @Idempotent()
  @ApiCreateComment()
  async create(
    @IdParam('id') blogId: number,
    @JsonBody() body: CreateCommentDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentResponse> {
    const comment = await this.comments.create(blogId, body, principal, new Date());
    response.location(`${COMMENTS_PATH}/${comment.id}`);
    return this.answer(comment, response);
  }

  @Delete('comments/:id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteComment()
  async remove(@IdParam('id') id: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.comments.remove(id, principal, new Date());
  }

  /** One comment with its `ETag`: `"<id>-1"`, as a comment is never changed. */
  private answer(comment: Comment, response: Response): CommentResponse {
    response.setHeader('ETag', versionedEntityTag({ id: comment.id, version: 1 }));
    return toCommentResponse(comment);
  }
}
