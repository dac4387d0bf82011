import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** What a client saw sending a body on its own connection ({@link sendRawBody}). */
export interface RawBodyExchange {
  /** Everything the server sent, as text (an answer's head and body). */
  received: string;
  /** Body bytes the connection took before it ended. */
  bytesWritten: number;
  /** The code of the error the connection ended with (EPIPE, ECONNRESET), or undefined when it closed cleanly. */
  error: string | undefined;
  /** ms from the request head until the connection closed. */
  closedAfterMs: number;
}

/** What {@link sendRawBody} sends. */
export interface RawBody {
  /** Default POST. */
  method?: string;
  /** Under the target URL's path. */
  path: string;
  contentType: string;
  /** The `Content-Length` the head declares. */
  declaredBytes: number;
  /** Body bytes sent (`x`s), at most `declaredBytes`. */
  sendBytes: number;
  /** Bytes per write. Default 64 KiB. */
  chunkBytes?: number;
  /** ms between writes; default 0: each write as soon as the connection takes the one before. */
  paceMs?: number;
  headers?: Record<string, string>;
}

/**
 * Sends `body.sendBytes` of a body (POST unless `body.method` says otherwise) to `target.url`
 * (http or https, trusting `target.caCertPem`) on a raw connection, reading what the server sends
 * all the while, as an HTTP/1.1 client does; over plain HTTP it goes on writing after the
 * server's half-close, as a hostile client would. It ends its side when it has sent the body, and
 * resolves once the connection has closed. Unlike fetch it reports how much of the body went out
 * and how the connection ended, so a test can tell a server that answered and lingered from one
 * that reset the connection or read without end.
 */
export function sendRawBody(target: { url: string; caCertPem?: string }, body: RawBody): Promise<RawBodyExchange> {
  const url = new URL(target.url);
  const port = Number(url.port);
  const socket: Socket =
    url.protocol === 'https:'
      ? tlsConnect({ host: url.hostname, port, ca: target.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] })
      : netConnect({ host: url.hostname, port, allowHalfOpen: true });
  const chunkBytes = body.chunkBytes ?? 64 * 1024;
  const chunk = Buffer.alloc(chunkBytes, 'x');
  const started = Date.now();
  let received = '';
  let bytesWritten = 0;
  let error: string | undefined;
  let ended = false;
  socket.on('data', (data: Buffer) => {
    received += data.toString('latin1');
  });
  socket.on('error', (cause: NodeJS.ErrnoException) => {
    error ??= cause.code ?? cause.message;
  });
  const head = [`${body.method ?? 'POST'} ${url.pathname.replace(/\/$/, '')}${body.path} HTTP/1.1`, `Host: ${url.host}`, `Content-Type: ${body.contentType}`, `Content-Length: ${body.declaredBytes}`, ...Object.entries(body.headers ?? {}).map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  const writeNext = (): void => {
    if (ended || socket.destroyed) return;
    if (bytesWritten >= body.sendBytes) {
      socket.end();
      return;
    }
    const piece = chunk.subarray(0, Math.min(chunkBytes, body.sendBytes - bytesWritten));
    socket.write(piece, (failure) => {
      if (failure !== undefined && failure !== null) return;
      bytesWritten += piece.length;
      if (body.paceMs !== undefined && body.paceMs > 0) setTimeout(writeNext, body.paceMs);
      else writeNext();
    });
  };
  return new Promise((resolvePromise) => {
    socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      socket.write(head);
      writeNext();
    });
    socket.once('close', () => {
      ended = true;
      resolvePromise({ received, bytesWritten, error, closedAfterMs: Date.now() - started });
    });
  });
}

/** The JSON body of the HTTP answer in `received` (what follows the head). */
export function answerBody(received: string): unknown {
  const start = received.indexOf('\r\n\r\n');
  return start < 0 ? undefined : JSON.parse(received.slice(start + 4));
}
