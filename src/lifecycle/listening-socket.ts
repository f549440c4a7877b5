import { createServer } from 'node:net';

/** The service could not listen where `HOST` and `PORT` say; `message` is one line naming them and the address. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** What to change for the errors `listen()` reports, by `code`. */
const HINTS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another process listens there: set PORT to a free port, or stop that process',
  EACCES: 'not permitted: set PORT to 1024 or above',
  EADDRNOTAVAIL: 'not an address of this machine: check HOST',
  ENOTFOUND: 'the host name does not resolve: check HOST',
  EAI_AGAIN: 'the host name does not resolve: check HOST',
};

/** `host:port`, with an IPv6 address in brackets. */
export const formatAddress = (host: string, port: number): string =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The one-line {@link ListenError} of a failed `listen()` on `host:port`. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): ListenError {
  const code = error.code ?? error.message;
  const hint = HINTS[code] ?? 'check HOST and PORT';
  return new ListenError(
    `Cannot listen on ${formatAddress(host, port)} (HOST=${host}, PORT=${port}): ${code}, ${hint}`,
  );
}

/**
 * Listens on `host:port` and closes again at once: whether the HTTP server will be able to, before anything else starts.
 * Connections are refused meanwhile, as before start-up.
 * @throws ListenError naming `PORT`, `HOST` and the address (in use, not permitted, not of this machine).
 */
export async function assertCanListen(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
