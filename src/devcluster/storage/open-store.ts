import { silentLogger, type Logger } from '../../observe/logger.js';
import { openDurableStore } from './durable-store.js';
import type { Store } from './types.js';
import { VersionedStore } from './versioned-store.js';

export type { ClosableWatchListener, WatchEnd } from './watch-hub.js';
export { DataDirError, type DataDirErrorCode } from './data-dir-error.js';

/** Options of {@link openStore}. */
export interface StoreOptions {
  /**
   * Directory for the write-ahead log, snapshot and lock file; created when missing. Without it
   * the store lives in memory only and mutations commit on the calling tick. Default: none.
   */
  dataDir?: string;
  /** How many of the most recent events are retained for watch resume (count). Default 10_000. */
  watchWindow?: number;
  /**
   * Log size in bytes past which the store writes a snapshot of the live objects and starts an
   * empty log. Default 64 MiB (67_108_864). Only used with `dataDir`.
   */
  compactAfterBytes?: number;
  /** Where the store reports failing listeners, recoveries and write errors. Default: silent. */
  logger?: Logger;
}

/** {@link StoreOptions} with every default applied. */
export interface ResolvedStoreOptions {
  readonly dataDir: string | undefined;
  readonly watchWindow: number;
  readonly compactAfterBytes: number;
  readonly logger: Logger;
}

/** Default number of retained watch events. */
export const DEFAULT_WATCH_WINDOW = 10_000;
/** Default log size that triggers compaction: 64 MiB. */
export const DEFAULT_COMPACT_AFTER_BYTES = 64 * 1024 * 1024;

/** Validates `options` and returns a new frozen object with every default filled in. */
export function withDefaults(options: StoreOptions): ResolvedStoreOptions {
  const watchWindow = options.watchWindow ?? DEFAULT_WATCH_WINDOW;
  if (!Number.isSafeInteger(watchWindow) || watchWindow < 1) {
    throw new RangeError(`watchWindow must be a positive integer, got ${watchWindow}`);
  }
  const compactAfterBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
  if (!Number.isSafeInteger(compactAfterBytes) || compactAfterBytes < 1) {
    throw new RangeError(`compactAfterBytes must be a positive integer, got ${compactAfterBytes}`);
  }
  if (options.dataDir === '') {
    throw new RangeError('dataDir must not be empty; leave it unset for a memory-only store');
  }
  return Object.freeze({
    dataDir: options.dataDir,
    watchWindow,
    compactAfterBytes,
    logger: options.logger ?? silentLogger(),
  });
}

/**
 * Opens the devcluster's storage engine. With `dataDir`, locks the directory, recovers the
 * snapshot and log (ignoring a torn final record), and makes every mutation durable before it
 * resolves; rejects with a `DataDirError` (`Locked`, `Corrupt`) when the directory cannot be used.
 * Without `dataDir`, returns a memory-only store at once.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const resolved = withDefaults(options);
  if (resolved.dataDir === undefined) {
    return new VersionedStore({ watchWindow: resolved.watchWindow, logger: resolved.logger });
  }
  return openDurableStore({ ...resolved, dataDir: resolved.dataDir });
}
