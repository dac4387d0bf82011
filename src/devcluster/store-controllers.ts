import { ApiError } from '../apiserver/api-error.js';
import { StorageError } from '../apiserver/storage.js';
import type { Logger } from '../observe/logger.js';
import type { ResourceId, Store, StoreEvent, WatchHandle } from './storage/types.js';

/**
 * A devcluster controller driven by the store's own events (the devcluster's stand-in for a
 * kube-controller-manager controller and its informers).
 */
export interface StoreController {
  /** Names the controller in logs. */
  readonly name: string;
  /**
   * Sees every committed change, synchronously on the committing tick, and at start every stored
   * object as an ADDED event; returns the keys to reconcile. May update the controller's indexes;
   * must not write.
   */
  observe(event: StoreEvent): readonly string[];
  /**
   * Brings what `key` names to its wanted state by writing through the API rules. Throwing logs
   * the failure; the key is reconciled again on the next change that names it.
   */
  reconcile(key: string): Promise<void>;
}

/** What {@link StoreControllers} runs. */
export interface StoreControllersInit {
  store: Store;
  /** Every resource the controllers observe. */
  resources: readonly ResourceId[];
  controllers: readonly StoreController[];
  logger: Logger;
}

/** One controller's queue: deduplicated keys, reconciled one at a time in FIFO order. */
class KeyQueue {
  readonly pending = new Set<string>();
  running: Promise<void> | undefined;
  constructor(readonly controller: StoreController) {}
}

/**
 * Runs {@link StoreController}s over a store: one watch per resource from one consistent snapshot
 * (the store lists synchronously, so no change falls between the snapshot and the watches), one
 * deduplicating queue per controller, reconciled serially. {@link idle} is the test hook: it
 * resolves once every queue is empty and no reconcile runs.
 */
export class StoreControllers {
  readonly #init: StoreControllersInit;
  readonly #queues: KeyQueue[];
  readonly #watches: WatchHandle[] = [];
  #stopped = false;

  /** Does no I/O. */
  constructor(init: StoreControllersInit) {
    this.#init = init;
    this.#queues = init.controllers.map((controller) => new KeyQueue(controller));
  }

  /** Feeds every stored object to the controllers, then follows the store's changes. */
  start(): void {
    const { store, resources } = this.#init;
    const revision = store.currentRevision();
    for (const resource of resources) {
      for (const object of store.list(resource).items) this.#dispatch({ type: 'ADDED', resource, object, revision });
    }
    for (const resource of resources) {
      this.#watches.push(store.watch({ resource }, revision, { onEvent: (event) => this.#dispatch(event) }));
    }
  }

  /** Resolves once no key is pending or being reconciled (new changes may queue more later). */
  async idle(): Promise<void> {
    for (;;) {
      const running = this.#queues.map((queue) => queue.running).filter((run): run is Promise<void> => run !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Stops following changes and waits for the reconciles in flight. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const watch of this.#watches.splice(0)) watch.close();
    for (const queue of this.#queues) queue.pending.clear();
    await this.idle();
  }

  #dispatch(event: StoreEvent): void {
    if (this.#stopped) return;
    for (const queue of this.#queues) {
      const keys = queue.controller.observe(event);
      if (keys.length === 0) continue;
      for (const key of keys) queue.pending.add(key);
      queue.running ??= this.#drain(queue);
    }
  }

  async #drain(queue: KeyQueue): Promise<void> {
    // Started from the committing tick: reconcile after the write that woke us has returned.
    await Promise.resolve();
    for (;;) {
      const next = queue.pending.values().next();
      if (next.done === true || this.#stopped) break;
      queue.pending.delete(next.value);
      try {
        await queue.controller.reconcile(next.value);
      } catch (error: unknown) {
        // A write lost to a concurrent change (whose event queues the key again), or the store closing.
        const expected = (error instanceof ApiError && (error.reason === 'Conflict' || error.reason === 'NotFound')) || (error instanceof StorageError && error.code === 'Closed');
        const log = this.#init.logger.child({ controller: queue.controller.name, key: next.value });
        if (expected) log.debug({ err: error }, 'Reconcile lost to a concurrent change');
        else log.warn({ err: error }, 'Reconcile failed; it is retried on the next change of the object');
      }
    }
    queue.running = undefined;
  }
}
