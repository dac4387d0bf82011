import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../observe/logger.js';

/** The serving certificate and key, as PEM text. */
export interface ServingPair {
  certPem: string;
  keyPem: string;
}

/** Reads a serving certificate and key from their files. */
export async function readServingPair(certPath: string, keyPath: string): Promise<ServingPair> {
  const [certPem, keyPem] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  return { certPem, keyPem };
}

/** Options of {@link watchServingPair}. */
export interface ServingPairWatchOptions {
  certPath: string;
  keyPath: string;
  /** Installs a new pair (a TLS server's setSecureContext); throws when the pair is unusable. */
  install: (pair: ServingPair) => void;
  /** Quiet period after the last file-system event before the files are read again, in ms. Default 100. */
  debounceMs?: number;
  logger: Logger;
}

/**
 * Watches the directories of a serving certificate and key (renames and symlink swaps, as
 * cert-manager and kubelet do, included) and installs the pair again after each burst of changes.
 * A pair that cannot be read or installed (half-written, mismatched) is logged and the serving
 * pair stays as it was; the next change tries again. Returns the stop function.
 */
export function watchServingPair(options: ServingPairWatchOptions): () => void {
  const debounceMs = options.debounceMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const reload = (): void => {
    readServingPair(options.certPath, options.keyPath)
      .then((pair) => {
        if (stopped) return;
        options.install(pair);
        options.logger.info({ certPath: options.certPath }, 'Reloaded the management serving certificate');
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: error, certPath: options.certPath, keyPath: options.keyPath }, 'Could not reload the management serving certificate; still serving the previous one');
      });
  };
  const watchers: FSWatcher[] = [...new Set([dirname(resolve(options.certPath)), dirname(resolve(options.keyPath))])].map((dir) =>
    watch(dir, () => {
      clearTimeout(timer);
      timer = setTimeout(reload, debounceMs);
    }),
  );
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
