import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { blankProblem, PROBLEM_MEDIA_TYPE } from '../filters/all-exceptions.filter';

/** Node.js's statuses for the parser's errors it names (its own `clientError` default); any other is 400. */
const CLIENT_ERRORS: Readonly<Record<string, { status: number; message: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'Request headers must be at most 16 KiB in all' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Chunk extensions must be at most 16 KiB' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time' },
};
const MALFORMED = { status: 400, message: 'The request is not valid HTTP/1.1' };

/** The path of the request line at the start of `raw`, without its query; `''` when there is none to read. */
function requestPathOf(raw: Buffer | undefined): string {
  const line = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[^\s?]*)[^\s]* HTTP\/1\.[01]\r?\n/.exec(raw?.toString('latin1') ?? '');
  return line?.[1] ?? '';
}

/**
 * Answers what Node.js's HTTP parser refuses before any route (headers over 16 KiB: 431, malformed: 400) with the
 * problem body every error has, and closes the connection, as Node.js's own `clientError` default does.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy(error);
      return;
    }
    const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify(blankProblem(status, message, requestPathOf(error.rawPacket)));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_MEDIA_TYPE}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
