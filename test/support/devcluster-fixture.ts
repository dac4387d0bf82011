import { afterAll, beforeAll } from 'vitest';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../src/devcluster/index.js';
import { waitFor } from './wait-for.js';

/** A parsed HTTP answer of the devcluster. */
export interface ApiResponse {
  status: number;
  contentType: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  text: string;
}

/** Options of one request. */
export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Raw body text; wins over `body`. */
  rawBody?: string;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
}

/** A devcluster started for one test file, with a fetch helper bound to it. */
export interface Fixture {
  cluster: DevCluster;
  request(path: string, options?: RequestOptions): Promise<ApiResponse>;
}

/** Starts a memory-only devcluster on an ephemeral port. */
export async function startFixture(options: DevClusterOptions = {}): Promise<Fixture> {
  const cluster = await startDevCluster({ port: 0, ...options });
  return {
    cluster,
    async request(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined = options.rawBody;
      if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
      if (options.accept !== undefined) headers['accept'] = options.accept;
      const response = await fetch(`${cluster.url}${path}`, { method: options.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON (e.g. /healthz): tests read `text` instead.
      }
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed, text };
    },
  };
}

/**
 * The before/after of a devcluster protocol test: registers, in the calling file or `describe`, a
 * `beforeAll` that starts a memory-only devcluster (with `options`) and an `afterAll` that closes
 * it, and answers the fixture its tests use. Using it outside those tests (at import time) throws.
 */
export function useDevclusterFixture(options: DevClusterOptions = {}): Fixture {
  let started: Fixture | undefined;
  beforeAll(async () => {
    started = await startFixture(options);
  });
  afterAll(async () => {
    await started?.cluster.close();
    started = undefined;
  });
  const current = (): Fixture => {
    if (started === undefined) throw new Error('the devcluster of useDevclusterFixture runs only during the tests of the file or describe that called it');
    return started;
  };
  return {
    get cluster() {
      return current().cluster;
    },
    request: (path, requestOptions) => current().request(path, requestOptions),
  };
}

/** An Endpoints object with the given addresses. */
export function endpoints(name: string, ips: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, ...extra },
    subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'http', port: 80 }] }],
  };
}

/** Reads a watch response line by line. */
export class WatchReader {
  readonly events: { type: string; object: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON
  ended = false;
  status = 0;
  readonly #controller = new AbortController();

  /** Opens the watch; resolves once the response headers arrived. */
  async open(url: string, headers: Record<string, string> = {}): Promise<this> {
    const response = await fetch(url, { headers, signal: this.#controller.signal });
    this.status = response.status;
    const body = response.body;
    if (body === null) throw new Error('no body');
    void this.#pump(body.getReader()); // consumed until the stream ends or the test aborts it
    return this;
  }

  async #pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== '') this.events.push(JSON.parse(line));
          newline = buffer.indexOf('\n');
        }
      }
    } catch {
      // Aborted by close() or the server dropped the connection: the watch ended either way.
    }
    this.ended = true;
  }

  /** Waits until at least `count` events arrived. */
  async waitForEvents(count: number): Promise<void> {
    await waitFor(`${count} watch events (have ${this.events.length})`, () => this.events.length >= count);
  }

  /** Aborts the request. */
  close(): void {
    this.#controller.abort();
  }
}
