import { ControllerQueues, type ObjectController } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import type { ResourceId, Store, WatchHandle } from './storage/types.js';

/**
 * A devcluster controller: an {@link ObjectController} fed by the store's own events,
 * synchronously on the committing tick.
 */
export type StoreController = ObjectController;

/** What {@link StoreControllers} runs. */
export interface StoreControllersInit {
  store: Store;
  /** Every resource the controllers observe. */
  resources: readonly ResourceId[];
  controllers: readonly StoreController[];
  logger: Logger;
}

/**
 * Runs {@link StoreController}s over a store: one watch per resource from one consistent snapshot
 * (the store lists synchronously, so no change falls between the snapshot and the watches), one
 * deduplicating queue per controller ({@link ControllerQueues}), reconciled serially.
 * {@link idle} is the test hook: it resolves once every queue is empty and no reconcile runs.
 */
export class StoreControllers {
  readonly #init: StoreControllersInit;
  readonly #queues: ControllerQueues;
  readonly #watches: WatchHandle[] = [];

  /** Does no I/O. */
  constructor(init: StoreControllersInit) {
    this.#init = init;
    this.#queues = new ControllerQueues(init.controllers, init.logger);
  }

  /** Feeds every stored object to the controllers, then follows the store's changes. */
  start(): void {
    const { store, resources } = this.#init;
    const revision = store.currentRevision();
    for (const resource of resources) {
      for (const object of store.list(resource).items) this.#queues.dispatch({ type: 'ADDED', resource, object });
    }
    for (const resource of resources) {
      this.#watches.push(store.watch({ resource }, revision, { onEvent: (event) => this.#queues.dispatch(event) }));
    }
  }

  /** Resolves once no key is pending or being reconciled (new changes may queue more later). */
  idle(): Promise<void> {
    return this.#queues.idle();
  }

  /** Stops following changes and waits for the reconciles in flight. Idempotent. */
  async stop(): Promise<void> {
    for (const watch of this.#watches.splice(0)) watch.close();
    await this.#queues.stop();
  }
}
