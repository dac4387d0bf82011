import { request as httpRequest, type Agent } from 'node:http';
import type { Socket } from 'node:net';

/*
 * One fuzz request on the wire and the rule every answer must keep (a 2xx, or a 4xx Failure
 * Status): shared by the HTTP fuzzer and the pressure fuzzer.
 */

/** One generated request. */
export interface FuzzRequest {
  readonly index: number;
  /** What kind of request it is, e.g. `body:yaml-alias-bomb`. */
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

/** What came back for one request. */
export interface FuzzReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The answer's `Connection` header (`keep-alive` or `close`). */
  readonly connection: string;
  /** The connection the answer came on; undefined for a watch, whose connection the client closes. */
  readonly socket: Socket | undefined;
}

/**
 * Sends one request to `baseUrl` (http), bounded by `deadlineMs`, through `agent` (default Node's
 * global one); a watch that starts is answered by its headers.
 */
export function sendFuzzRequest(baseUrl: string, request: FuzzRequest, deadlineMs: number, agent?: Agent): Promise<FuzzReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(request.body.length);
    const outgoing = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers, ...(agent !== undefined ? { agent } : {}) }, (response) => {
      const contentType = String(response.headers['content-type'] ?? '');
      const status = response.statusCode ?? 0;
      const connection = String(response.headers.connection ?? '');
      if (status === 200 && (/[?&]watch=/.test(request.path) || /stream=watch|watch/.test(contentType))) {
        // A watch streams until closed: its start is the answer.
        response.destroy();
        resolve({ status, contentType, body: Buffer.alloc(0), connection, socket: undefined });
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks), connection, socket: outgoing.socket ?? undefined }));
      response.on('error', reject);
    });
    // The whole exchange, not only a silent socket, must end by the deadline.
    const timer = setTimeout(() => outgoing.destroy(new Error(`no answer within ${deadlineMs} ms (hang)`)), deadlineMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * Why the connection `reply` came through `agent` on, offered by its answer for the next request
 * (no `Connection: close`), did not answer that request, or undefined. A server that closes such a
 * connection drops the next request of a client that reused it at that moment ("socket hang up"):
 * the request sent here goes on the same connection as soon as the client may reuse it (`agent`
 * keeps one connection alive), so such a close shows every time, not only when it races the
 * client. Any answer to it will do.
 */
export async function keptConnectionProblem(baseUrl: string, reply: FuzzReply, agent: Agent, deadlineMs: number): Promise<string | undefined> {
  if (reply.socket === undefined || /close/i.test(reply.connection)) return undefined;
  const next: FuzzRequest = { index: -1, label: 'next', method: 'GET', path: '/version', headers: { accept: 'application/json' } };
  try {
    const answer = await sendFuzzRequest(baseUrl, next, deadlineMs, agent);
    return answer.socket === reply.socket ? undefined : `answered ${reply.status} keeping the connection alive, then closed it before the next request`;
  } catch (error: unknown) {
    return `answered ${reply.status} keeping the connection alive, then did not answer the next request on it: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Why `reply` is not an acceptable answer, or undefined: a 2xx, or a 4xx whose body is a Failure Status of that code. */
export function replyProblem(request: FuzzRequest, reply: FuzzReply): string | undefined {
  const { status } = reply;
  const text = (): string => JSON.stringify(reply.body.subarray(0, 300).toString('utf8'));
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) return `answered ${status}: ${text()}`;
  if (status < 300 || request.method === 'HEAD') return undefined;
  if (reply.contentType.includes('protobuf')) {
    return reply.body.subarray(0, 4).equals(Buffer.from([0x6b, 0x38, 0x73, 0x00])) ? undefined : `${status} protobuf without the k8s envelope: ${text()}`;
  }
  if (!reply.contentType.includes('json')) return `${status} with content-type ${JSON.stringify(reply.contentType)}, not a Status: ${text()}`;
  let parsed: { kind?: unknown; status?: unknown; code?: unknown; message?: unknown };
  try {
    parsed = JSON.parse(reply.body.toString('utf8')) as typeof parsed;
  } catch {
    return `${status} with a body that is not JSON: ${text()}`;
  }
  if (parsed.kind !== 'Status' || parsed.status !== 'Failure' || parsed.code !== status || typeof parsed.message !== 'string' || parsed.message === '') {
    return `${status} with a body that is not a Failure Status of code ${status}: ${text()}`;
  }
  return undefined;
}
