import type { Storage } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import { ApiStorage } from './storage/api-storage.js';
import { openStore } from './storage/open-store.js';

/** The devcluster's storage engine as an apiserver {@link Storage}, and how to close it. */
export interface DevStorage {
  readonly storage: Storage;
  /** Closes the engine (and releases the data directory). */
  close(): Promise<void>;
}

/**
 * Opens the devcluster's storage engine on its own, for another server on the apiserver core:
 * durable under `dataDir` (locked while open), in memory without it. `vcsync dev` keeps its
 * management API's objects here.
 */
export async function openDevStorage(options: { dataDir?: string; logger?: Logger } = {}): Promise<DevStorage> {
  const store = await openStore({ ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}), ...(options.logger !== undefined ? { logger: options.logger } : {}) });
  return { storage: new ApiStorage(store), close: () => store.close() };
}
