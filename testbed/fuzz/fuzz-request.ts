import { request as httpRequest } from 'node:http';

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
}

/** Sends one request to `baseUrl` (http), bounded by `deadlineMs`; a watch that starts is answered by its headers. */
export function sendFuzzRequest(baseUrl: string, request: FuzzRequest, deadlineMs: number): Promise<FuzzReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(request.body.length);
    const outgoing = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers }, (response) => {
      const contentType = String(response.headers['content-type'] ?? '');
      const status = response.statusCode ?? 0;
      if (status === 200 && (/[?&]watch=/.test(request.path) || /stream=watch|watch/.test(contentType))) {
        // A watch streams until closed: its start is the answer.
        response.destroy();
        resolve({ status, contentType, body: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    // The whole exchange, not only a silent socket, must end by the deadline.
    const timer = setTimeout(() => outgoing.destroy(new Error(`no answer within ${deadlineMs} ms (hang)`)), deadlineMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
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
