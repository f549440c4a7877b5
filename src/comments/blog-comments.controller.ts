import { Controller, Get, HttpCode, HttpStatus, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { IdParam } from '../common/http/id-param.decorator';
import { JsonBody } from '../common/http/json-body.decorator';
import { listEnvelope } from '../common/paging/list-envelope';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { PublicAnswer, PublicRead } from '../shared-cache/public-read';
import { commentAnswer } from './comment-answer';
import { blogCommentsPath, COMMENTS_PATH } from './comment-paths';
import { blogCommentsKey } from './comment-surrogate-keys';
import { ApiComments, ApiCreateComment, ApiListComments } from './comments.api-docs';
import { CommentsService } from './comments.service';
import { CommentListResponse, CommentResponse, toCommentResponse } from './dto/comment-response.dto';
import { CreateCommentDto } from './dto/create-comment.dto';
import { ListCommentsQueryDto } from './dto/list-comments-query.dto';

/**
 * `/api/v1/blogs/:id/comments`: the list as the blog's reads (public unless `READS_REQUIRE_AUTH=true`), the create
 * with a bearer token.
 */
@Controller({ path: 'blogs', version: '1' })
@ApiComments()
export class BlogCommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get(':id/comments')
  @ReadAccess()
  @ApiListComments()
  async list(
    @IdParam('id') blogId: number,
    @Query() query: ListCommentsQueryDto,
    @CurrentPrincipal() principal: Principal | undefined,
    @PublicRead() answer: PublicAnswer,
  ): Promise<CommentListResponse> {
    const page = await this.comments.list(blogId, query, principal, new Date());
    answer.linkNext(blogCommentsPath(blogId), page.nextCursor).keep(blogCommentsKey(blogId));
    return listEnvelope(page, query.limit, toCommentResponse);
  }

  @Post(':id/comments')
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
    return commentAnswer(comment, response);
  }
}
