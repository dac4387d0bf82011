import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../observe/logger.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { DurableLog } from './durable-log.js';
import { recoverDataDir, SNAPSHOT_FILE_NAME, WAL_FILE_NAME } from './recover-data-dir.js';
import { fsyncDirectory } from './snapshot-file.js';
import type { Store } from './types.js';
import { VersionedStore } from './versioned-store.js';

/** Resolved settings of a store backed by a data directory. */
export interface DurableStoreSettings {
  dataDir: string;
  watchWindow: number;
  compactAfterBytes: number;
  logger: Logger;
}

/**
 * Locks `dataDir`, recovers its snapshot and log, cuts off a torn tail, and returns a store whose
 * mutations resolve only after their log record is fsynced. Releases the lock if recovery fails.
 */
export async function openDurableStore(settings: DurableStoreSettings): Promise<Store> {
  const { dataDir, logger } = settings;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await acquireDataDirLock(dataDir, logger);
  try {
    const recovered = await recoverDataDir(dataDir, settings.watchWindow, logger);
    const logPath = join(dataDir, WAL_FILE_NAME);
    const handle = await open(logPath, 'a', 0o600);
    try {
      if (recovered.logFileBytes !== recovered.validLogBytes) {
        await handle.truncate(recovered.validLogBytes);
        await handle.datasync();
      }
      if (recovered.logFileBytes === 0) {
        await fsyncDirectory(dataDir); // make the new (or empty) log's directory entry durable
      }
    } catch (error: unknown) {
      await handle.close();
      throw error;
    }
    const log = new DurableLog({
      handle,
      logPath,
      snapshotPath: join(dataDir, SNAPSHOT_FILE_NAME),
      sizeBytes: recovered.validLogBytes,
      revision: recovered.revision,
      compactAfterBytes: settings.compactAfterBytes,
      objects: recovered.objects,
      logger,
    });
    logger.info(
      { dataDir, revision: recovered.revision, logBytes: recovered.validLogBytes },
      'Opened the store data directory',
    );
    return new VersionedStore({
      watchWindow: settings.watchWindow,
      logger,
      objects: recovered.objects,
      revision: recovered.revision,
      events: recovered.events,
      journal: {
        append: (record, onDurable) => log.append(record, onDurable),
        close: async () => {
          try {
            await log.close();
          } finally {
            await lock.release();
          }
        },
      },
    });
  } catch (error: unknown) {
    await lock.release();
    throw error;
  }
}
