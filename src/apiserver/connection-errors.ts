import type { IncomingMessage, ServerResponse } from 'node:http';
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
 * bodies past the size limit, whose connection must be closed without losing the answer, and
 * bodies an answer did not need, of which the server reads only a bounded part.
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
 * How much of a body the server reads after answering without it ({@link answerOversizedBody},
 * {@link boundUnreadBody}): at most 4 MiB, read and dropped; past that it stops reading,
 * half-closes, and cuts the connection 500 ms later (Go's server, under kube-apiserver, lingers as
 * long); 5 s after the answer it cuts the connection whatever its state.
 */
const UNREAD_BODY_DISCARD = Object.freeze({ bytes: 4 * 1024 * 1024, lingerMs: 500, ms: 5_000 });

/**
 * Reads and drops the rest of `request`'s body within {@link UNREAD_BODY_DISCARD}, calling
 * `ended` once the body has ended within it. Past its bytes, reading stops, our side is
 * half-closed once the answer is out (`answer`, when it is being written by Node's response; an
 * answer written on the socket goes out first anyway) and the connection is cut after the
 * linger; past its time, the connection is cut. Nothing is kept.
 */
function discardUnreadBody(request: IncomingMessage, ended: () => void, answer?: ServerResponse): void {
  const socket = request.socket;
  let discarded = 0;
  const timers: NodeJS.Timeout[] = [];
  const stopTimers = (): void => {
    for (const timer of timers) clearTimeout(timer);
  };
  const cut = (): void => {
    stopTimers();
    socket.destroy();
  };
  const onEnd = (): void => {
    request.off('data', drop);
    socket.off('close', stopTimers);
    stopTimers();
    ended();
  };
  function drop(chunk: Buffer): void {
    discarded += chunk.length;
    if (discarded <= UNREAD_BODY_DISCARD.bytes) return;
    request.off('data', drop);
    request.off('end', onEnd);
    request.pause();
    whenAnswered(answer, () => {
      socket.end();
      timers.push(setTimeout(cut, UNREAD_BODY_DISCARD.lingerMs));
    });
  }
  timers.push(setTimeout(cut, UNREAD_BODY_DISCARD.ms));
  socket.once('close', stopTimers);
  request.on('data', drop);
  request.once('end', onEnd);
  request.resume();
}

/** Runs `then` once `answer` (Node's response, when given) has been handed to the connection; at once when there is none. */
function whenAnswered(answer: ServerResponse | undefined, then: () => void): void {
  if (answer === undefined || answer.writableFinished) then();
  else answer.once('finish', then);
}

/**
 * Closes the connection once the answer has gone out: half-closes after `answer` (see
 * {@link whenAnswered}), destroys the socket once what it holds is flushed, and cuts it if the
 * flushing takes longer than the bound's time. Destroying at once would drop what the socket has
 * not yet handed to the kernel.
 */
function closeOnceAnswered(socket: Duplex, answer?: ServerResponse): void {
  whenAnswered(answer, () => {
    const flushing = setTimeout(() => socket.destroy(), UNREAD_BODY_DISCARD.ms);
    socket.once('close', () => clearTimeout(flushing));
    socket.end();
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
}

/**
 * Answers a request whose body is past the size limit with `status` (a 413) at once, before the
 * body is read, and closes the connection without resetting it under a client still writing. An
 * HTTP/1.1 client writes its body before or while it reads the answer; a connection closed while
 * bytes still arrive is reset, and the reset loses the answer (the client sees EPIPE or
 * ECONNRESET, not the Status). A client's TLS stops writing when the server half-closes. So the
 * answer is written, the rest of the body is read and dropped within
 * {@link UNREAD_BODY_DISCARD}, and the connection is closed once the body has ended and the answer
 * has gone out. A client can neither hold the connection longer than the bound's time nor make
 * the server read more than its bytes.
 */
export function answerOversizedBody(request: IncomingMessage, status: StatusObject): void {
  const socket = request.socket;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // The bound's time holds until the connection is closed, the answer's flushing included.
  const overall = setTimeout(() => socket.destroy(), UNREAD_BODY_DISCARD.ms);
  socket.once('close', () => clearTimeout(overall));
  socket.write(closingResponse(status, request.method === 'HEAD'));
  if (request.readableEnded) closeOnceAnswered(socket);
  else discardUnreadBody(request, () => closeOnceAnswered(socket));
}

/**
 * Bounds what the server reads of a request's body when it answers without reading it all (a 401,
 * 403 or 404 decided from the head, a route that ignores the body). Left alone, Node's server
 * reads and drops the rest once the answer is out, at whatever length the head declared or a
 * chunked body runs to, for as long as the request timeout allows, before the connection serves
 * its next request: an unauthenticated client could make it read without end. Call it before the
 * answer is written: the body is then read here, within {@link UNREAD_BODY_DISCARD}, instead of
 * by Node's unbounded drain.
 *
 * A body whose declared length fits the bound ends within it (or is cut by its time, while its
 * client is still writing): the answer keeps the connection alive for the next request. Any other
 * body (longer, or chunked, so of no known length) may end past the bound, and the server must
 * then close a connection its answer had offered to keep: a client that reused it at that moment
 * would see its next request dropped unanswered. So its answer says `Connection: close`, as Go's
 * server (under kube-apiserver) says when more than it will read remains, and the connection is
 * closed once the answer is out and the body has ended, or past the bound as above. Node's own
 * close after such an answer would destroy the socket while the body is still arriving, which
 * resets the connection and loses the answer the client has not read yet: it only half-closes.
 */
export function boundUnreadBody(request: IncomingMessage, response: ServerResponse): void {
  const chunked = request.headers['transfer-encoding'] !== undefined;
  const declared = Number(request.headers['content-length'] ?? 0);
  // Without either header a request has no body (an injected request is never `complete`).
  if (request.complete || request.readableEnded || request.socket.destroyed || (!chunked && declared === 0)) return;
  if (!chunked && Number.isSafeInteger(declared) && declared <= UNREAD_BODY_DISCARD.bytes) {
    discardUnreadBody(request, () => {}, response);
    return;
  }
  const socket = request.socket;
  response.setHeader('Connection', 'close');
  // Node calls it once the answer has finished (`Connection: close`); the close is decided here.
  socket.destroySoon = (): void => {
    socket.end();
  };
  discardUnreadBody(request, () => closeOnceAnswered(socket, response), response);
}
