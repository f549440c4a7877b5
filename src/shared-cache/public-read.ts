import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import type { Request, Response } from 'express';
import { withEntityTag } from '../common/http/origin-freshness';
import { linkNextPage } from '../common/paging/list-envelope';
import { SharedCache } from './shared-cache';

/** A read's request and answer: what a public read handler sets on its 200 (or 304) beside the body it returns. */
export class PublicAnswer {
  constructor(
    private readonly cache: SharedCache,
    readonly request: Request,
    readonly response: Response,
  ) {}

  /** Marks the answer public with these `Surrogate-Key`s ({@link SharedCache.keep}). */
  keep(...keys: readonly string[]): this {
    this.cache.keep(this.request, this.response, keys.join(' '));
    return this;
  }

  /** `body` with its strong `ETag` `tag`: a matching `If-None-Match` gets 304 ({@link withEntityTag}). */
  tagged<T>(tag: string, body: T): T {
    return withEntityTag(this.response, tag, body);
  }

  /** The `Link` to the next page at `path` when the page has a `nextCursor` ({@link linkNextPage}). */
  linkNext(path: string, nextCursor: string | null): this {
    linkNextPage(this.response, path, this.request.url, nextCursor);
    return this;
  }
}

/** Makes a handler's {@link PublicAnswer} from its request, with the module's {@link SharedCache}. */
@Injectable()
export class PublicAnswerPipe implements PipeTransform<Request, PublicAnswer> {
  constructor(private readonly cache: SharedCache) {}

  transform(request: Request): PublicAnswer {
    return new PublicAnswer(this.cache, request, request.res as Response);
  }
}

const CurrentRequest = createParamDecorator((_data: unknown, context: ExecutionContext): Request =>
  context.switchToHttp().getRequest<Request>(),
);

/**
 * The {@link PublicAnswer} of a read: `answer.keep(...keys)` marks it public, `answer.tagged(tag, body)` gives its
 * `ETag`, `answer.linkNext(path, cursor)` its `Link`. The module imports `SharedCacheModule`.
 */
export const PublicRead = (): ParameterDecorator => CurrentRequest(undefined, PublicAnswerPipe);
