import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { patience } from './patience';

/** One POST a receiver got. */
export interface ReceivedHook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** When the POST arrived (ms since the epoch). */
  readonly at: number;
}

/** How a receiver answers a POST: a status, `hang` (never answers), or a status after `afterMs`. */
export type HookAnswer = number | 'hang' | { readonly status: number; readonly afterMs: number };

/** A webhook receiver on 127.0.0.1 for one test file. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`. */
  readonly url: string;
  readonly received: ReceivedHook[];
  /** How the next POSTs are answered (200 at first); `answer` sees the request's index. */
  answerWith(answer: HookAnswer | ((index: number) => HookAnswer)): void;
  close(): Promise<void>;
}

/** Starts a receiver that records every POST and answers as told. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const hanging: ServerResponse[] = [];
  let answer: (index: number) => HookAnswer = () => 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = received.push({ headers: request.headers, body, at: Date.now() }) - 1;
      const status = answer(index);
      if (status === 'hang') hanging.push(response);
      else if (typeof status === 'number') response.writeHead(status).end();
      else {
        hanging.push(response);
        setTimeout(() => response.destroyed || response.writeHead(status.status).end(), status.afterMs).unref();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerWith: (next) => {
      answer = typeof next === 'function' ? next : () => next;
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves once `condition()` holds, checking every 100 ms; rejects with `what` after {@link patience}(`ms`). */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, ms = 45_000) {
  const timeoutMs = patience(ms);
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
