import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { BLOG_LISTS_KEY } from '../blogs/blog-surrogate-keys';
import type { SharedCache } from '../shared-cache/shared-cache';
import type { PublicDocument } from './feeds.service';

/** Strong entity tag of a document's text (RFC 9110 §8.8.3): 128 bits of its SHA-256, base64url, quoted. */
export const documentEntityTag = (body: string): string =>
  `"${createHash('sha256').update(body).digest().subarray(0, 16).toString('base64url')}"`;

/**
 * Answers `document` with its `Content-Type`, `ETag` and `Last-Modified` (second precision, RFC 9110 §8.8.2), public
 * under the key `blogs`, which every blog event purges. Express answers a matching `If-None-Match` (or, without it,
 * `If-Modified-Since`) with 304, and `HEAD` without the body.
 */
export function answerDocument(
  cache: SharedCache,
  request: Request,
  response: Response,
  document: PublicDocument,
): string {
  cache.keep(request, response, BLOG_LISTS_KEY);
  response.setHeader('Content-Type', document.mediaType);
  response.setHeader('ETag', documentEntityTag(document.body));
  response.setHeader('Last-Modified', document.lastModified.toUTCString());
  return document.body;
}
