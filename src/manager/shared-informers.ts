import { setMaxListeners } from 'node:events';
import type { ResourceType } from '../kube/api-path.js';
import { Informer, type InformerOptions, type NamedTransform } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { ListerWatcher } from '../kube/reflector.js';

/** Which watch an informer is, and what it caches of it: two requests for the same of both get the same informer. */
export interface InformerRequest {
  /** Name of the informer (its metrics label, and what health checks list); the first request's name is kept. */
  name: string;
  /** One of the factory's `clusters`, e.g. `virtual` or `host`. */
  cluster: string;
  resource: ResourceType;
  /** Namespace to watch; `''` or absent watches all namespaces. */
  namespace?: string;
  /** Label selector of the watch; `''` or absent selects everything. */
  labelSelector?: string;
  /** What the cache keeps of each object (see {@link NamedTransform}). Absent: objects are cached whole. */
  transform?: NamedTransform;
}

/** Options of {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  /** The clients informers list and watch with, by cluster name. */
  clusters: Readonly<Record<string, ListerWatcher>>;
  /** What every informer is built with besides its watch (logger, metrics, resync, watch timing). */
  informerDefaults?: Omit<InformerOptions, 'name' | 'client' | 'resource' | 'namespace' | 'labelSelector' | 'fieldSelector' | 'transform'>;
}

/** The key of an informer: (cluster, resource, namespace, label selector, transform name). */
export function informerKey(request: InformerRequest): string {
  const { group = '', version, resource } = request.resource;
  return [request.cluster, `${group}/${version}/${resource}`, request.namespace ?? '', request.labelSelector ?? '', request.transform?.name ?? ''].join('|');
}

/**
 * Informers shared by everything the daemon runs, after client-go's SharedInformerFactory: one
 * informer (one list and watch, one cache) per (cluster, resource, namespace, label selector,
 * transform), however many users ask for it. Informers requested before {@link SharedInformerFactory.run}
 * start with it; those requested while it runs start at once.
 */
export class SharedInformerFactory {
  readonly #options: SharedInformerFactoryOptions;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #runs: Promise<void>[] = [];
  #signal: AbortSignal | undefined;

  constructor(options: SharedInformerFactoryOptions) {
    this.#options = options;
  }

  /** The informer of `request`'s watch, created on first use. Throws for a cluster the factory does not know. */
  informer<T extends KubeObject>(request: InformerRequest): Informer<T> {
    const key = informerKey(request);
    let informer = this.#informers.get(key);
    if (informer === undefined) {
      const client = this.#options.clusters[request.cluster];
      if (client === undefined) {
        throw new Error(`informer ${request.name}: no cluster "${request.cluster}" (known: ${Object.keys(this.#options.clusters).join(', ')})`);
      }
      const { transform } = request;
      informer = new Informer<KubeObject>({
        ...this.#options.informerDefaults,
        name: request.name,
        client,
        resource: request.resource,
        ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
        ...(request.labelSelector !== undefined ? { labelSelector: request.labelSelector } : {}),
        ...(transform !== undefined ? { transform: (object: KubeObject) => transform.apply(object) } : {}),
        ...(transform?.dropsManagedFields === true ? { listWithoutManagedFields: true } : {}),
      });
      this.#informers.set(key, informer);
      if (this.#signal !== undefined) this.#start(informer, this.#signal);
    }
    // One cache holds objects of one resource; the caller names the type it reads them as.
    return informer as unknown as Informer<T>;
  }

  /** Every informer, in the order first requested. */
  informers(): Informer<KubeObject>[] {
    return [...this.#informers.values()];
  }

  /** True once every informer has listed. */
  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  /** The informers whose last list or watch request failed (they are backing off), by name. */
  disconnected(): string[] {
    return this.informers()
      .filter((i) => !i.connected())
      .map((i) => i.name);
  }

  /** Runs every informer until `signal` aborts; resolves after all stopped. Runs once. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#signal !== undefined) throw new Error('the informer factory is already running');
    // Every reflector and wait of every informer listens on this one signal: a signal of its own
    // with a raised bound keeps MaxListenersExceededWarning away without touching the caller's.
    const run = new AbortController();
    setMaxListeners(100, run.signal);
    const stop = (): void => run.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    this.#signal = run.signal;
    for (const informer of this.#informers.values()) this.#start(informer, run.signal);
    try {
      if (!run.signal.aborted) await new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
      // Informers started while others were stopping are in #runs too.
      let settled = 0;
      while (settled < this.#runs.length) {
        const batch = this.#runs.slice(settled);
        settled += batch.length;
        await Promise.all(batch);
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  #start(informer: Informer<KubeObject>, signal: AbortSignal): void {
    this.#runs.push(informer.run(signal));
  }
}
