import { afterAll, afterEach, beforeAll } from 'vitest';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import type { KubeObject, WatchEvent } from '../../../src/kube/kube-object.js';
import type { WatchOptions } from '../../../src/kube/rest-client.js';
import type { WatchStream } from '../../../src/kube/watch-stream.js';
import { SecretStorage, type SecretClient, type SecretStorageOptions } from '../../../src/management/secret-storage.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { waitFor } from '../../support/wait-for.js';

/** A host cluster with a namespace for management Secrets, and stores on it that the bed stops. */
export interface StoreBed {
  client: RestClient;
  namespace: string;
  /** A new running store on the namespace (through `client` when given), once its cache is synced. */
  open(options?: Partial<Omit<SecretStorageOptions, 'namespace'>>): Promise<SecretStorage>;
  /** Stops one store (as a replica shutting down) and waits until it has. */
  close(storage: SecretStorage): Promise<void>;
  /** Stops every store still running, then the devcluster (a real control plane is the suite's). */
  stop(): Promise<void>;
}

/**
 * Starts the host side of a management-store test: on `plane` (a real control plane shared by the
 * suite) a fresh namespace `namespace`, else a fresh in-process devcluster with that namespace.
 */
export async function startStoreBed(plane: RealControlPlane | undefined, namespace: string): Promise<StoreBed> {
  const dev: DevCluster | undefined = plane === undefined ? await startDevCluster({ port: 0 }) : undefined;
  const kubeconfig: object = plane?.kubeconfig ?? (dev as DevCluster).kubeConfig;
  const client = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: kubeconfig }, { name: 'host' }), qps: Infinity });
  await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const running = new Map<SecretStorage, { controller: AbortController; done: Promise<void> }>();
  const close = async (storage: SecretStorage): Promise<void> => {
    const entry = running.get(storage);
    if (entry === undefined) return;
    running.delete(storage);
    entry.controller.abort();
    await entry.done;
  };
  return {
    client,
    namespace,
    async open(options = {}) {
      // A write that waits for its own change longer than a test may run fails the test instead
      // of hiding behind the store's fallback.
      const storage = new SecretStorage({ client, writeVisibleTimeoutMs: 120_000, ...options, namespace });
      const controller = new AbortController();
      running.set(storage, { controller, done: storage.run(controller.signal) });
      await waitFor('the store to list its Secrets', () => storage.hasSynced());
      return storage;
    },
    close,
    async stop() {
      await Promise.all([...running.keys()].map(close));
      client.close();
      await dev?.close();
    },
  };
}

/** The hosts a management-store suite runs on: devcluster always, the real kube-apiserver when its binaries are there. */
export function storeBackends(what: string): Array<'devcluster' | 'real'> {
  return realClusterMissing(`${what} on a real kube-apiserver`) ? ['devcluster'] : ['devcluster', 'real'];
}

/**
 * Registers, in the calling `describe`, a real control plane for the block when `backend` is
 * `real` (shared by its tests: each gets a fresh namespace `<prefix>-<n>`) and the stopping of each
 * test's bed; answers the function that starts a test's bed.
 */
export function useStoreBed(backend: 'devcluster' | 'real', prefix: string): () => Promise<StoreBed> {
  let plane: RealControlPlane | undefined;
  let tests = 0;
  let bed: StoreBed | undefined;
  beforeAll(async () => {
    if (backend === 'real') plane = await startRealControlPlane();
  }, 240_000);
  afterAll(async () => {
    await plane?.close();
  });
  afterEach(async () => {
    await bed?.stop();
    bed = undefined;
  });
  return async () => {
    tests += 1;
    bed = await startStoreBed(plane, `${prefix}-${tests}`);
    return bed;
  };
}

/** A client whose watches can be held: a store on it keeps a cache that lags the host. */
export interface HoldableClient {
  client: SecretClient;
  /** From now on, events of open and new watches are held back (the connections stay open). */
  hold(): void;
  /** Delivers what was held, and every later event. */
  release(): void;
}

/** Wraps `client` so that its watches' events can be held back, as a replica whose watch lags. */
export function holdableWatches(client: RestClient): HoldableClient {
  let gate: { opened: Promise<void>; open: () => void } | undefined;
  const held: SecretClient = {
    get: client.get.bind(client),
    create: client.create.bind(client),
    update: client.update.bind(client),
    delete: client.delete.bind(client),
    list: client.list.bind(client),
    async watch<T extends KubeObject>(path: string, options?: WatchOptions): Promise<WatchStream<T>> {
      const stream = await client.watch<T>(path, options);
      let closed = false;
      let wake = (): void => {};
      const closing = new Promise<void>((resolve) => {
        wake = resolve;
      });
      async function* events(): AsyncGenerator<WatchEvent<T>> {
        for await (const event of stream) {
          if (gate !== undefined) await Promise.race([gate.opened, closing]);
          if (closed) return;
          yield event;
        }
      }
      return {
        close: () => {
          closed = true;
          wake();
          stream.close();
        },
        [Symbol.asyncIterator]: events,
      };
    },
  };
  return {
    client: held,
    hold() {
      if (gate !== undefined) return;
      let open = (): void => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { opened, open };
    },
    release() {
      const current = gate;
      gate = undefined;
      current?.open();
    },
  };
}
