import type { Logger } from '../observe/logger.js';
import { ApiError } from '../apimachinery/index.js';
import { StorageError, type ResourceId, type StoredObject } from './storage.js';

/** One committed change of a stored object, as a controller observes it. */
export interface ObjectChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: ResourceId;
  /** The object after the change; for DELETED its last state. */
  object: StoredObject;
}

/**
 * A controller driven by the changes of the objects a server stores (the stand-in for a
 * kube-controller-manager controller and its informers), run by the devcluster over its store
 * and by the management server over its storage.
 */
export interface ObjectController {
  /** Names the controller in logs. */
  readonly name: string;
  /**
   * Sees every committed change in commit order, and at start every stored object as an ADDED
   * change; returns the keys to reconcile. May update the controller's indexes; must not write.
   */
  observe(change: ObjectChange): readonly string[];
  /**
   * Brings what `key` names to its wanted state by writing through the API rules. Throwing logs
   * the failure; the key is reconciled again on the next change that names it.
   */
  reconcile(key: string): Promise<void>;
}

/** One controller's queue: deduplicated keys, reconciled one at a time in FIFO order. */
class KeyQueue {
  readonly pending = new Set<string>();
  running: Promise<void> | undefined;
  constructor(readonly controller: ObjectController) {}
}

/**
 * The work queues of a set of {@link ObjectController}s: {@link dispatch} hands a change to every
 * controller and queues the keys it names, one deduplicating queue per controller, reconciled
 * serially after the dispatching tick. A failed reconcile is logged (at debug when it lost to a
 * concurrent change, which queues its key again) and not retried by itself.
 */
export class ControllerQueues {
  readonly #queues: KeyQueue[];
  readonly #logger: Logger;
  #stopped = false;

  /** Does no I/O. */
  constructor(controllers: readonly ObjectController[], logger: Logger) {
    this.#queues = controllers.map((controller) => new KeyQueue(controller));
    this.#logger = logger;
  }

  /** Gives `change` to every controller and queues the keys it names; ignored once stopped. */
  dispatch(change: ObjectChange): void {
    if (this.#stopped) return;
    for (const queue of this.#queues) {
      const keys = queue.controller.observe(change);
      if (keys.length === 0) continue;
      for (const key of keys) queue.pending.add(key);
      queue.running ??= this.#drain(queue);
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

  /** Drops the pending keys, ignores later changes, and waits for the reconciles in flight. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const queue of this.#queues) queue.pending.clear();
    await this.idle();
  }

  async #drain(queue: KeyQueue): Promise<void> {
    // Started from the dispatching tick: reconcile after the write that woke us has returned.
    await Promise.resolve();
    for (;;) {
      const next = queue.pending.values().next();
      if (next.done === true || this.#stopped) break;
      queue.pending.delete(next.value);
      try {
        await queue.controller.reconcile(next.value);
      } catch (error: unknown) {
        // A write lost to a concurrent change (whose event queues the key again), or the storage closing.
        const expected = (error instanceof ApiError && (error.reason === 'Conflict' || error.reason === 'NotFound')) || (error instanceof StorageError && error.code === 'Closed');
        const log = this.#logger.child({ controller: queue.controller.name, key: next.value });
        if (expected) log.debug({ err: error }, 'Reconcile lost to a concurrent change');
        else log.warn({ err: error }, 'Reconcile failed; it is retried on the next change of the object');
      }
    }
    queue.running = undefined;
  }
}
