import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { BLOG_LISTS_KEY } from '../blogs/blog-surrogate-keys';
import type { SharedCache } from '../shared-cache/shared-cache';
import type { PublicDocument, StreamedDocument } from './feeds.service';

/** 128 bits of the SHA-256 of `text`, base64url. */
const digest = (text: string): string =>
  createHash('sha256').update(text).digest().subarray(0, 16).toString('base64url');

/** Strong entity tag of a document's text (RFC 9110 §8.8.3). */
export const documentEntityTag = (body: string): string => `"${digest(body)}"`;

/** Weak entity tag (RFC 9110 §8.8.3) of what names a document's state (`identity`), for a document sent as it is read. */
export const weakEntityTag = (identity: string): string => `W/"${digest(identity)}"`;

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

/**
 * Answers `document` as {@link answerDocument} does, its body in parts as they come; nothing is read for a 304 (a
 * matching `If-None-Match`, or without it `If-Modified-Since`) or for `HEAD`, whose body the router never starts.
 */
export function answerStreamedDocument(
  cache: SharedCache,
  request: Request,
  response: Response,
  document: StreamedDocument,
): string | AsyncIterable<string> {
  cache.keep(request, response, BLOG_LISTS_KEY);
  response.setHeader('Content-Type', document.mediaType);
  response.setHeader('ETag', document.entityTag);
  response.setHeader('Last-Modified', document.lastModified.toUTCString());
  // Express answers an empty body to a fresh request with 304; it does not look at a streamed one.
  return request.fresh ? '' : document.body;
}
