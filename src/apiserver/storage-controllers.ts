import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../observe/logger.js';
import { ControllerQueues, type ObjectChange, type ObjectController } from './object-controllers.js';
import { StorageError, type ResourceId, type Storage, type StorageWatch, type StoredObject } from './storage.js';

/** Options of {@link StorageControllers}. */
export interface StorageControllersOptions {
  storage: Storage;
  /** Every resource the controllers observe. */
  resources: readonly ResourceId[];
  controllers: readonly ObjectController[];
  /** Wait before listing again after a watch ended or a list or watch failed, in ms. Default 1000. */
  relistDelayMs?: number;
  logger: Logger;
}

function keyOf(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/**
 * Runs {@link ObjectController}s over a {@link Storage} (the management server's host Secrets, or
 * any other): per resource a list, then a watch from the list's resourceVersion, as an informer
 * does; when the watch ends or fails it lists again and tells the controllers what changed
 * meanwhile (objects gone as DELETED). One deduplicating queue per controller
 * ({@link ControllerQueues}).
 */
export class StorageControllers {
  readonly #options: StorageControllersOptions;
  readonly #queues: ControllerQueues;
  readonly #synced = new Set<ResourceId>();

  /** Does no I/O and starts no timers. */
  constructor(options: StorageControllersOptions) {
    this.#options = options;
    this.#queues = new ControllerQueues(options.controllers, options.logger);
  }

  /** Whether every resource has been listed once (the controllers saw every stored object). */
  hasSynced(): boolean {
    return this.#synced.size === this.#options.resources.length;
  }

  /** Resolves once no key is pending or being reconciled (new changes may queue more later). */
  idle(): Promise<void> {
    return this.#queues.idle();
  }

  /** Follows every resource until `signal` fires, then waits for the reconciles in flight. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.#options.resources.map((resource) => this.#follow(resource, signal)));
    await this.#queues.stop();
  }

  async #follow(resource: ResourceId, signal: AbortSignal): Promise<void> {
    const { storage, logger } = this.#options;
    const known = new Map<string, StoredObject>();
    const dispatch = (change: ObjectChange): void => {
      if (change.type === 'DELETED') known.delete(keyOf(change.object));
      else known.set(keyOf(change.object), change.object);
      this.#queues.dispatch(change);
    };
    while (!signal.aborted) {
      let watch: StorageWatch | undefined;
      let ended: (() => void) | undefined;
      const end = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const onAbort = (): void => ended?.();
      signal.addEventListener('abort', onAbort, { once: true });
      let expired = false;
      try {
        const listed = await storage.list(resource);
        const present = new Set(listed.items.map(keyOf));
        for (const [key, object] of [...known]) if (!present.has(key)) dispatch({ type: 'DELETED', resource, object });
        for (const object of listed.items) {
          const previous = known.get(keyOf(object));
          if (previous !== undefined && previous.metadata.uid !== object.metadata.uid) dispatch({ type: 'DELETED', resource, object: previous });
          dispatch({ type: known.has(keyOf(object)) ? 'MODIFIED' : 'ADDED', resource, object });
        }
        this.#synced.add(resource);
        watch = await storage.watch({ resource }, listed.resourceVersion, {
          onEvent: (event) => dispatch({ type: event.type, resource, object: event.object }),
          onClosed: () => ended?.(),
        });
        await end;
      } catch (error: unknown) {
        // Expired: changes came between the list and the watch, list again at once; else the storage failed.
        expired = error instanceof StorageError && error.code === 'Expired';
        logger.child({ resource }).debug({ err: error }, 'Controllers list again after a failed list or watch');
      } finally {
        watch?.close();
        signal.removeEventListener('abort', onAbort);
      }
      if (signal.aborted) break;
      if (expired) continue;
      await delay(this.#options.relistDelayMs ?? 1000, undefined, { signal }).catch(() => undefined); // aborted: the loop ends
    }
  }
}
