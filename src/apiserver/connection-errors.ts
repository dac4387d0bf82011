import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import { failureStatus, type StatusObject } from '../apimachinery/index.js';

// Required, not imported: an ESM import of node:http builds its facade by reading every export,
// and the lazy WebSocket export then loads undici (~100 ms of start CPU without a snapshot).
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/**
 * Status answers for requests that never reach a route, written straight to the connection: HTTP
 * the Node parser refuses (control characters or spaces in the path, an unknown method, broken
 * framing, headers over Node's 16 KiB, `Content-Length` with `Transfer-Encoding`) and `CONNECT`,
 * which Node hands to its `connect` event instead of the request handler (without a listener the
 * connection is dropped unanswered). Fastify's own answer to the former is not a Status. And
 * bodies past the size limit, whose connection must be closed without losing the answer.
 */

/** The Status for a request the HTTP parser refused with Node's `code` (`HPE_…`, `ERR_HTTP_…`). */
export function clientErrorStatus(code: string | undefined): StatusObject {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return failureStatus(431, 'RequestHeaderFieldsTooLarge', 'the request line and headers are too large: the limit is 16 KiB; send a shorter path and fewer or shorter headers');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return failureStatus(408, 'Timeout', 'the request was not received in time');
    default:
      return failureStatus(400, 'BadRequest', `the request is not valid HTTP/1.1 (${code ?? 'parse error'}): check the method, the path (percent-encode spaces and control characters) and the headers`);
  }
}

/** The 405 Status for a `CONNECT` request: the server tunnels nothing. */
export function connectStatus(): StatusObject {
  return failureStatus(405, 'MethodNotAllowed', 'CONNECT is not supported: this server tunnels nothing');
}

/**
 * Whether the bytes the parser refused are a HEAD request (Node's `rawPacket` of the error): its
 * answer carries no body, or the client reads the body as the start of a broken next response.
 */
export function isHeadRequest(rawPacket: unknown): boolean {
  return Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/** `status` as a complete HTTP/1.1 response that closes the connection (without the body when `head`). */
function closingResponse(status: StatusObject, head: boolean): string {
  const body = JSON.stringify(status);
  const lines = [`HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', ''].join('\r\n');
  return head ? lines : `${lines}${body}`;
}

/**
 * Writes `status` as a complete HTTP/1.1 response on `socket` and closes it (without the body
 * when `head`: the answer to a HEAD request); a socket that can no longer be written (the client
 * went away) is destroyed instead.
 */
export function answerOnSocket(socket: Duplex, status: StatusObject, head = false): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(closingResponse(status, head));
}

/**
 * How {@link answerOversizedBody} closes: it reads and drops at most 4 MiB of the body after its
 * answer, then stops reading and cuts the connection 500 ms later (Go's server, under
 * kube-apiserver, lingers as long); 5 s after the answer it cuts the connection whatever its state.
 */
const OVERSIZED_BODY_DISCARD = Object.freeze({ bytes: 4 * 1024 * 1024, lingerMs: 500, ms: 5_000 });

/**
 * Answers a request whose body is past the size limit with `status` (a 413) at once, before the
 * body is read, and closes the connection without resetting it under a client still writing. An
 * HTTP/1.1 client writes its body before or while it reads the answer; a connection closed while
 * bytes still arrive is reset, and the reset loses the answer (the client sees EPIPE or
 * ECONNRESET, not the Status). A client's TLS stops writing when the server half-closes. So the
 * answer is written, the rest of the body is read and dropped (nothing is kept), and the
 * connection is closed once the body has ended and the answer has gone out. Past
 * {@link OVERSIZED_BODY_DISCARD}'s bytes reading stops, our side is half-closed, and the
 * connection is cut after the linger, time for the client to read the answer while the kernel's
 * buffers take what it still sends. A client can neither hold the connection longer than the
 * bound's time nor make the server read more than its bytes.
 */
export function answerOversizedBody(request: IncomingMessage, status: StatusObject): void {
  const socket = request.socket;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  let discarded = 0;
  const timers: NodeJS.Timeout[] = [];
  const cut = (): void => {
    for (const timer of timers) clearTimeout(timer);
    socket.destroy();
  };
  timers.push(setTimeout(cut, OVERSIZED_BODY_DISCARD.ms));
  socket.once('close', () => {
    for (const timer of timers) clearTimeout(timer);
  });
  const drop = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded <= OVERSIZED_BODY_DISCARD.bytes) return;
    request.off('data', drop);
    request.off('end', closeWhenAnswered);
    request.pause();
    socket.end();
    timers.push(setTimeout(cut, OVERSIZED_BODY_DISCARD.lingerMs));
  };
  // Destroying a socket drops what it has not yet handed to the kernel: the answer goes out first.
  const closeWhenAnswered = (): void => {
    socket.end();
    if (socket.writableFinished) cut();
    else socket.once('finish', cut);
  };
  request.on('data', drop);
  socket.write(closingResponse(status, request.method === 'HEAD'));
  if (request.readableEnded) closeWhenAnswered();
  else {
    request.once('end', closeWhenAnswered);
    request.resume();
  }
}
