import https from 'node:https';

/** One management API answer: the HTTP status and the parsed JSON body (undefined when not JSON). */
export interface ManagementAnswer {
  status: number;
  body: unknown;
}

/** The group-version path of OwnedAccessKeys under the management base path. */
export const OWNED_ACCESS_KEYS_PATH = '/apis/management.loft.sh/v1/ownedaccesskeys';

/** The TokenReview webhook path under the management base path. */
export const TOKEN_REVIEWS_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';

/** Sends `method path` to the management API at `baseUrl` (HTTPS trusting `caPem`), JSON in and out; 10 s timeout. */
export function callManagementApi(target: { baseUrl: string; caPem: string }, method: string, path: string, options: { key?: string; body?: unknown; contentType?: string } = {}): Promise<ManagementAnswer> {
  const url = new URL(`${target.baseUrl}${path}`);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.key !== undefined) headers['authorization'] = `Bearer ${options.key}`;
  if (payload !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const request = https.request({ host: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers, ca: target.caPem, timeout: 10_000, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    request.on('error', reject);
    request.end(payload);
  });
}
