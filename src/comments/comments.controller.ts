import { Controller, Delete, Get, HttpCode, HttpStatus } from '@nestjs/common';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { IdParam } from '../common/http/id-param.decorator';
import { PublicAnswer, PublicRead } from '../shared-cache/public-read';
import { commentAnswer } from './comment-answer';
import { commentKeys } from './comment-surrogate-keys';
import { ApiComments, ApiDeleteComment, ApiGetComment } from './comments.api-docs';
import { CommentsService } from './comments.service';
import type { CommentResponse } from './dto/comment-response.dto';

/**
 * `/api/v1/comments/:id`: the read as the blog's reads (public unless `READS_REQUIRE_AUTH=true`), with the comment's
 * strong `ETag` (a matching `If-None-Match`: 304, as for a blog); the delete with a bearer token. Comments are never changed: no PUT or PATCH.
 */
@Controller({ path: 'comments', version: '1' })
@ApiComments()
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get(':id')
  @ReadAccess()
  @ApiGetComment()
  async findOne(
    @IdParam('id') id: number,
    @CurrentPrincipal() principal: Principal | undefined,
    @PublicRead() answer: PublicAnswer,
  ): Promise<CommentResponse> {
    const comment = await this.comments.findOne(id, principal, new Date());
    return commentAnswer(comment, answer.keep(commentKeys(comment.id, comment.blogId)).response);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteComment()
  async remove(@IdParam('id') id: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.comments.remove(id, principal, new Date());
  }
}
