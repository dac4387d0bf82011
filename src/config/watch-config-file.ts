import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { silentLogger, type Logger } from '../observe/logger.js';
import { ConfigErrorCode, type ConfigError } from './config-error.js';
import { hashConfigText } from './config-source.js';
import { readFailure } from './load-config-file.js';
import type { ConfigResult } from './parse-config.js';

/** Options of {@link ConfigFileWatcher}. */
export interface ConfigFileWatcherOptions {
  /** Path of the config file, as it appears in error messages. Required. */
  readonly path: string;
  /**
   * Called with the parsed result each time the file's content changes: valid (`ok: true`) or
   * not (the caller keeps its last good config). Never called for writes, renames or symlink swaps
   * that leave the content byte-for-byte unchanged. Called one at a time, never concurrently. A
   * callback that throws is logged and watching continues.
   */
  readonly onChange: (result: ConfigResult) => void;
  /**
   * Checks the new text; its result is what `onChange` receives. Pass the same check the program
   * runs at start (`checkConfigText` with the same schema and validators), so a reload accepts
   * exactly what a start would. Required.
   */
  readonly parse: (text: string, path: string) => ConfigResult | Promise<ConfigResult>;
  /**
   * Quiet period after the last file-system event in the directory before the file is re-read,
   * in milliseconds. Editors and ConfigMap updates produce bursts of events; one read follows a
   * burst. Default 100.
   */
  readonly debounceMs?: number;
  /**
   * Hash (`ConfigSource.hash`) of the content the caller has already applied. When given and the
   * file differs at start, that difference is reported. Default: the content found when `run()`
   * starts counts as applied and is not reported.
   */
  readonly initialHash?: string;
  /** Logger; default silent. */
  readonly logger?: Logger;
}

type ResolvedOptions = Readonly<Required<Omit<ConfigFileWatcherOptions, 'initialHash'>>> & {
  readonly initialHash: string | undefined;
};

function withDefaults(options: ConfigFileWatcherOptions): ResolvedOptions {
  return Object.freeze({
    path: options.path,
    onChange: options.onChange,
    parse: options.parse,
    debounceMs: options.debounceMs ?? 100,
    initialHash: options.initialHash,
    logger: options.logger ?? silentLogger(),
  });
}

/**
 * Watches a config file and reports content changes. It watches the file's directory, not the
 * file: editors save by writing a temporary file and renaming it over the original, and
 * Kubernetes ConfigMap volumes swap a `..data` symlink; a watch on the file itself loses track
 * after either. Every event in the directory schedules a debounced re-read; the content's SHA-256
 * decides whether anything changed.
 *
 * A save that rewrites the file in place (truncate, then write) can be read between the two when
 * the writer stalls longer than the debounce. A file that became empty is reported as a refused
 * change ({@link ConfigErrorCode.EMPTY_ON_RELOAD}), never parsed: an empty vcluster.yaml is valid
 * (all defaults) and would silently drop every patch until the write completes. A stalled write
 * cut elsewhere cannot be told from a finished one (re-reading until two reads agree only repeats
 * what the debounce already waits for); it is refused when it does not validate, and the write
 * that completes it is the next change. Writers that rename a complete file into place (editors
 * that save atomically, Kubernetes Secret and ConfigMap volumes) never show either.
 *
 * Construction does nothing; {@link ConfigFileWatcher.run} does the work.
 */
export class ConfigFileWatcher {
  readonly #options: ResolvedOptions;

  /** Stores the options; starts nothing. */
  constructor(options: ConfigFileWatcherOptions) {
    this.#options = withDefaults(options);
  }

  /**
   * Watches until `signal` fires, then stops the directory watch, cancels a pending re-read,
   * waits for a re-read in progress (and its callback) to finish, and resolves. Resolves at once
   * if the signal has already fired. Rejects only if the directory cannot be watched at start.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const { path, debounceMs, logger, parse } = this.#options;
    const log = logger.child({ component: 'config-watcher', path });
    const directory = dirname(resolve(path));

    let lastHash: string | undefined = this.#options.initialHash;
    let timer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> | undefined;
    let again = false;
    let watcher: FSWatcher | undefined;

    const check = async (): Promise<void> => {
      const state = await readState(path);
      if (signal.aborted) return;
      if (state.hash === lastHash) {
        log.debug('Config file unchanged');
        return;
      }
      lastHash = state.hash;
      // No verdict here: whether the change is applied is the handler's decision (it can reject a
      // valid file, e.g. a setting that needs a restart), and the handler logs it.
      log.info('Config file changed');
      const result: ConfigResult =
        state.text === undefined
          ? { ok: false, errors: [state.failure] }
          : state.text.trim() === ''
            ? { ok: false, errors: [emptyOnReload(path)] }
            : await parse(state.text, path);
      if (signal.aborted) return;
      try {
        this.#options.onChange(result);
      } catch (error: unknown) {
        log.error({ err: error }, 'Config change handler failed');
      }
    };

    const fire = (): void => {
      timer = undefined;
      if (inFlight !== undefined) {
        again = true;
        return;
      }
      inFlight = check()
        .catch((error: unknown) => {
          log.error({ err: error }, 'Config re-read failed');
        })
        .finally(() => {
          inFlight = undefined;
          if (again && !signal.aborted) {
            again = false;
            schedule();
          }
        });
    };

    const schedule = (): void => {
      if (signal.aborted) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(fire, debounceMs);
    };

    const startWatching = (): FSWatcher => {
      const created = watch(directory, { persistent: true }, () => {
        schedule();
      });
      created.on('error', (error: unknown) => {
        // The directory went away or the watch broke: re-arm after a pause and re-read, so a
        // directory that comes back is picked up.
        log.warn({ err: error }, 'Config directory watch failed; re-arming');
        created.close();
        setTimeout(() => {
          if (signal.aborted) return;
          try {
            watcher = startWatching();
            schedule();
          } catch (rearmError: unknown) {
            log.warn({ err: rearmError }, 'Config directory watch could not be re-armed');
          }
        }, debounceMs).unref();
      });
      return created;
    };

    // Watch first, then read: a change between the two is then seen by the watch.
    watcher = startWatching();
    log.debug({ directory, file: basename(path) }, 'Watching config directory');
    if (lastHash === undefined) {
      lastHash = (await readState(path)).hash;
    } else {
      schedule();
    }

    await new Promise<void>((resolveAbort) => {
      if (signal.aborted) resolveAbort();
      else signal.addEventListener('abort', () => resolveAbort(), { once: true });
    });
    if (timer !== undefined) clearTimeout(timer);
    watcher.close();
    await inFlight;
  }
}

/** Convenience for `new ConfigFileWatcher(options).run(signal)`. */
export function watchConfigFile(options: ConfigFileWatcherOptions, signal: AbortSignal): Promise<void> {
  return new ConfigFileWatcher(options).run(signal);
}

/** The refusal of a file that holds nothing but white space on reload. */
function emptyOnReload(path: string): ConfigError {
  return {
    code: ConfigErrorCode.EMPTY_ON_RELOAD,
    path: '',
    file: path,
    line: 1,
    column: 1,
    message:
      'the file is empty; a reload never applies an empty file, which is what a save that truncates the file looks like before it writes (the last valid configuration stays in force): write the whole file, best to a temporary file renamed over this one, and write `{}` to mean all defaults',
  };
}

type FileState =
  | { readonly hash: string; readonly text: string }
  | { readonly hash: string; readonly text?: undefined; readonly failure: ConfigError };

async function readState(path: string): Promise<FileState> {
  try {
    const text = await readFile(path, 'utf8');
    return { hash: hashConfigText(text), text };
  } catch (error: unknown) {
    const failure = readFailure(path, error);
    // Unreadable states hash by reason, so the same failure is reported once.
    return { hash: `unreadable:${failure.message}`, failure };
  }
}
