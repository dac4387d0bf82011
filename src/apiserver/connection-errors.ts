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
 * connection is dropped unanswered). Fastify's own answer to the former is not a Status.
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
  const body = JSON.stringify(status);
  const lines = [`HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', ''].join('\r\n');
  socket.end(head ? lines : `${lines}${body}`);
}
