import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Minimum level written. Default `info`, or `$VCSYNC_LOG_LEVEL` when set. */
  level?: LevelWithSilent;
  /** Human-readable colourised output (pino-pretty) instead of JSON lines. Default false. */
  pretty?: boolean;
  /** Fields bound to every line, e.g. `{ component: 'devcluster' }`. */
  bindings?: Record<string, unknown>;
}

const LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function levelFromEnv(): LevelWithSilent | undefined {
  const level = process.env['VCSYNC_LOG_LEVEL'];
  return level !== undefined && LEVELS.includes(level) ? (level as LevelWithSilent) : undefined;
}

/**
 * Creates the process logger: JSON lines on stdout (pino), errors under `err`, or pretty output
 * for a person at a terminal. Components derive child loggers from it; nothing logs through a
 * module-level singleton.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? levelFromEnv() ?? 'info';
  const base = { ...options.bindings };
  if (options.pretty === true) {
    return pino({
      level,
      base,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l' } },
    });
  }
  return pino({ level, base });
}

/** A logger that writes nothing; the default for components and tests that were given none. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
