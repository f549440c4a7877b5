import { Controller, Delete, Get, HttpCode, HttpStatus, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { IdParam } from '../common/http/id-param.decorator';
import { commentAnswer } from './comment-answer';
import { ApiComments, ApiDeleteComment, ApiGetComment } from './comments.api-docs';
import { CommentsService } from './comments.service';
import type { CommentResponse } from './dto/comment-response.dto';

/**
 * `/api/v1/comments/:id`: the read as the blog's reads (public unless `READS_REQUIRE_AUTH=true`), with the comment's
 * strong `ETag`; the delete with a bearer token. Comments are never changed: no PUT or PATCH.
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
    @Res({ passthrough: true }) response: Response,
  ): Promise<CommentResponse> {
    return commentAnswer(await this.comments.findOne(id, principal, new Date()), response);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiDeleteComment()
  async remove(@IdParam('id') id: number, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.comments.remove(id, principal, new Date());
  }
}
