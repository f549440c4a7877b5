import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { Observable, tap } from 'rxjs';
import { EventRelayJob } from './event-relay.job';

/** Methods that change nothing (RFC 9110 §9.2.1): their answers ask for no relay. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Asks for a relay ({@link EventRelayJob.soon}) once a request of an unsafe method is handled without error, its
 * transaction committed: its events reach the feed's subscribers (cache purges) without waiting for the next second.
 */
@Injectable()
export class RelayAfterWrites implements NestInterceptor {
  constructor(private readonly relay: EventRelayJob) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || SAFE_METHODS.has(context.switchToHttp().getRequest<Request>().method)) {
      return next.handle();
    }
    return next.handle().pipe(tap({ complete: () => this.relay.soon() }));
  }
}
