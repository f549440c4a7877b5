import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { EventRelayJob } from './event-relay.job';

/** Methods that change nothing (RFC 9110 §9.2.1): their answers ask for no relay. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Express middleware: once the answer to a request of an unsafe method is sent with a status below 400 (its
 * transaction committed), asks `relay` for a relay ({@link EventRelayJob.soon}), so that its events reach the feed's
 * subscribers (cache purges) without waiting for the next second. A read passes untouched (docs/performance.md).
 */
export function relayAfterWrites(relay: Pick<EventRelayJob, 'soon'>): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!SAFE_METHODS.has(request.method)) {
      response.once('finish', () => {
        if (response.statusCode < 400) relay.soon();
      });
    }
    next();
  };
}
