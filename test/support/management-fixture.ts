import { request as httpsRequest } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTlsAssets, type TlsAssets } from '../../src/apiserver/security/tls-assets.js';
import type { RequestAuthorizer } from '../../src/apiserver/request-authorization.js';
import type { Storage } from '../../src/apiserver/storage.js';
import { silentLogger, type Logger } from '../../src/observe/logger.js';
import { startManagementServer, type DirectTokenOptions, type ManagementMetrics, type ManagementServer, type NamedTokenVerifier, type VirtualClusterAccess } from '../../src/management/index.js';
import { MapStorage } from './map-storage.js';

/** The group-version path of OwnedAccessKeys on a `loft` management server. */
export const KEYS_PATH = '/apis/management.loft.sh/v1/ownedaccesskeys';

/** One HTTP exchange's outcome: status, headers and the body (JSON parsed when it is JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A request to the management server. */
export interface Call {
  /** The bearer key; undefined sends no Authorization header. */
  key?: string | undefined;
  /** A raw Authorization header (overrides `key`). */
  authorization?: string;
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** Aborts the exchange (the promise rejects), e.g. `AbortSignal.timeout(ms)` to bound a request. */
  signal?: AbortSignal;
}

/**
 * Sends `method path` to the management API at `target.url` over HTTPS trusting `caCertPem`
 * (the path is relative to the base path unless it starts with `//`).
 */
export function callManagement(target: { url: string; caCertPem: string }, method: string, path: string, call: Call = {}): Promise<Answer> {
  const url = new URL(target.url);
  const fullPath = path.startsWith('//') ? path.slice(1) : `${url.pathname}${path}`;
  const payload = call.body === undefined ? undefined : typeof call.body === 'string' || Buffer.isBuffer(call.body) ? call.body : JSON.stringify(call.body);
  const headers: Record<string, string> = { accept: call.accept ?? 'application/json' };
  if (call.authorization !== undefined) headers['authorization'] = call.authorization;
  else if (call.key !== undefined) headers['authorization'] = `Bearer ${call.key}`;
  if (payload !== undefined) {
    headers['content-type'] = call.contentType ?? 'application/json';
    // Node sends a DELETE body without framing unless told its length.
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const request = httpsRequest({ host: url.hostname, port: url.port, method, path: fullPath, headers, ca: target.caCertPem, ...(call.signal !== undefined ? { signal: call.signal } : {}) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        if (String(response.headers['content-type']).includes('json')) body = JSON.parse(text);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** A management server over real HTTPS on an ephemeral port, with a map storage (or the given one) and a settable clock. */
export class ManagementFixture {
  /** The wall clock the server reads (whole seconds, as timestamps are stored); tests move it forward. */
  nowMs = Math.floor(Date.now() / 1000) * 1000;

  private constructor(
    readonly dir: string,
    readonly tls: TlsAssets,
    readonly storage: Storage,
    readonly server: ManagementServer,
    readonly adminKey: string,
    readonly bootstrapKeyPath: string,
  ) {}

  /**
   * Starts one; `authorizer` replaces the default ownership rule; `tokenVerifiers` follow the
   * access keys in the token review; `storage` replaces the map storage (the caller runs and stops
   * it; another fixture's storage makes a second replica, or a restart); `tokens` configures direct tokens.
   */
  static async start(
    options: {
      authorizer?: RequestAuthorizer;
      lastActivityWriteIntervalMs?: number;
      tokenVerifiers?: readonly NamedTokenVerifier[];
      authCacheMaxKeys?: number;
      tokens?: DirectTokenOptions;
      virtualCluster?: VirtualClusterAccess;
      logger?: Logger;
      storage?: Storage;
      metrics?: ManagementMetrics;
    } = {},
  ): Promise<ManagementFixture> {
    const dir = await mkdtemp(join(tmpdir(), 'management-'));
    const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
    const storage = options.storage ?? new MapStorage();
    const bootstrapKeyPath = join(dir, 'bootstrap-admin.key');
    const late: { fixture?: ManagementFixture } = {};
    const server = await startManagementServer({
      storage,
      keyHashSecret: Buffer.alloc(32, 7),
      tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
      bootstrapKeyPath,
      now: () => late.fixture?.nowMs ?? Date.now(),
      ...(options.authorizer !== undefined ? { authorizer: options.authorizer } : {}),
      ...(options.lastActivityWriteIntervalMs !== undefined ? { lastActivityWriteIntervalMs: options.lastActivityWriteIntervalMs } : {}),
      ...(options.tokenVerifiers !== undefined ? { tokenVerifiers: options.tokenVerifiers } : {}),
      ...(options.authCacheMaxKeys !== undefined ? { authCacheMaxKeys: options.authCacheMaxKeys } : {}),
      ...(options.tokens !== undefined ? { tokens: options.tokens } : {}),
      ...(options.virtualCluster !== undefined ? { virtualCluster: options.virtualCluster } : {}),
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      logger: options.logger ?? silentLogger(),
    });
    // A fixture on another's storage finds the admin key there and writes no file: use the other's.
    const adminKey = await readFile(bootstrapKeyPath, 'utf8').then(
      (text) => text.trim(),
      () => '',
    );
    late.fixture = new ManagementFixture(dir, tls, storage, server, adminKey, bootstrapKeyPath);
    return late.fixture;
  }

  /** Sends `method path` (relative to the base path unless it starts with `//`). */
  call(method: string, path: string, call: Call = {}): Promise<Answer> {
    return callManagement({ url: this.server.url, caCertPem: this.tls.caCertPem }, method, path, call);
  }

  /** Creates a key as `key` (the admin's by default); returns the create answer. */
  createKey(spec: Record<string, unknown>, options: { name?: string; key?: string } = {}): Promise<Answer> {
    return this.call('POST', KEYS_PATH, {
      key: options.key ?? this.adminKey,
      body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: options.name ?? `key-${Math.random().toString(36).slice(2, 8)}` }, spec },
    });
  }

  /** Creates the key `name` as the admin and returns its value; fails unless it was created. */
  async newKey(name: string, spec: Record<string, unknown>): Promise<string> {
    const created = await this.createKey(spec, { name });
    if (created.status !== 201) throw new Error(`creating the key ${name} answered ${created.status}: ${created.text}`);
    return created.body.spec.key as string;
  }

  /** Disables (`spec.disabled: true`) or deletes the key `name` as the admin; fails unless it worked. */
  async retireKey(name: string, how: 'disabled' | 'deleted'): Promise<void> {
    const answer =
      how === 'disabled'
        ? await this.call('PATCH', `${KEYS_PATH}/${name}`, { key: this.adminKey, contentType: 'application/merge-patch+json', body: { spec: { disabled: true } } })
        : await this.call('DELETE', `${KEYS_PATH}/${name}`, { key: this.adminKey });
    if (answer.status !== 200) throw new Error(`making the key ${name} ${how} answered ${answer.status}: ${answer.text}`);
  }

  /** Stops the server and removes the temp dir. */
  async stop(): Promise<void> {
    await this.server.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
