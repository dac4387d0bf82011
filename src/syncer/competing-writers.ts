import type { Clock } from '../kube/clock.js';
import type { KubeObject } from '../kube/kube-object.js';

/** Options of {@link CompetingWriterDetector}. */
export interface CompetingWriterDetectorOptions {
  /** Time source. Required (a `FakeClock` in tests). */
  clock: Clock;
  /** Foreign changes of one key within `windowMs` that make the key contended. Default 3. */
  threshold?: number;
  /**
   * The sliding window, in ms. Also the least time between two reports of one key, and how long
   * a contended key must stay quiet after a repair before it counts as settled. Default 60 000.
   */
  windowMs?: number;
  /** How long the first repair of a contended key is deferred, in ms; doubles per repair. Default 1000. */
  initialBackoffMs?: number;
  /** Longest deferral of a repair, in ms. Default 300 000 (5 min). */
  maxBackoffMs?: number;
}

/** What to do about a host object that someone else changed away from the desired state. */
export interface ContentionVerdict {
  /** `repair`: rewrite the host object now. `defer`: leave it, look again after `afterMs`. */
  readonly action: 'repair' | 'defer';
  /** Ms until a repair is allowed; 0 with `repair`. */
  readonly afterMs: number;
  /** Another writer changed this key at least `threshold` times within the window. */
  readonly contended: boolean;
  /**
   * Foreign changes to count as competing writes now: those of the window on the verdict that
   * first finds the key contended, then 1 per change not seen before, 0 for one already counted.
   */
  readonly competingWrites: number;
  /** True on the first contended verdict of the key in a window: log it and record an event. */
  readonly report: boolean;
}

interface KeyRecord {
  /** When each distinct foreign change within the window was seen, in ms. */
  changesMs: number[];
  lastVersion: string;
  lastChangeMs: number;
  contended: boolean;
  backoffMs: number;
  repairAtMs: number;
  lastRepairMs: number;
  lastReportMs: number;
}

type Resolved = Readonly<Required<CompetingWriterDetectorOptions>>;

function withDefaults(options: CompetingWriterDetectorOptions): Resolved {
  return Object.freeze({
    clock: options.clock,
    threshold: options.threshold ?? 3,
    windowMs: options.windowMs ?? 60_000,
    initialBackoffMs: options.initialBackoffMs ?? 1000,
    maxBackoffMs: options.maxBackoffMs ?? 300_000,
  });
}

/**
 * Tells drift repair from a fight. The syncer repairs a host object it had converged when someone
 * else changes it away from the desired state; when that happens to one key at least `threshold`
 * times within `windowMs` another controller is writing the same object (vcluster's own syncer with
 * Endpoints sync left on, typically). Rewriting at once would make the two controllers fight for
 * ever, so repairs of a contended key are deferred, the deferral doubling per repair up to
 * `maxBackoffMs`, and the contention is reported once per window. A contended key settles once a
 * repair has stood for a whole window.
 *
 * Pure bookkeeping: no I/O, time from the injected clock; one record per key that drifted recently
 * (drop them with {@link CompetingWriterDetector.settled} and {@link CompetingWriterDetector.forget}).
 */
export class CompetingWriterDetector {
  readonly #options: Resolved;
  readonly #keys = new Map<string, KeyRecord>();

  constructor(options: CompetingWriterDetectorOptions) {
    this.#options = withDefaults(options);
  }

  /**
   * Records that the host object of `key`, last converged by this process, now carries a change by
   * someone else (`version`: its resourceVersion; the same version is counted once), and says
   * whether to repair it now.
   */
  observe(key: string, version: string): ContentionVerdict {
    const { clock, threshold, windowMs, initialBackoffMs, maxBackoffMs } = this.#options;
    const now = clock.now();
    let record = this.#keys.get(key);
    if (record === undefined || this.#expired(record, now)) {
      record = { changesMs: [], lastVersion: '', lastChangeMs: now, contended: false, backoffMs: 0, repairAtMs: now, lastRepairMs: -Infinity, lastReportMs: -Infinity };
      this.#keys.set(key, record);
    }
    const isNew = version !== record.lastVersion;
    if (isNew) {
      record.changesMs.push(now);
      record.lastVersion = version;
      record.lastChangeMs = now;
    }
    record.changesMs = record.changesMs.filter((at) => now - at <= windowMs);

    let competingWrites = isNew ? 1 : 0;
    if (!record.contended) {
      if (record.changesMs.length < threshold) {
        record.lastRepairMs = now;
        return { action: 'repair', afterMs: 0, contended: false, competingWrites: 0, report: false };
      }
      record.contended = true;
      record.backoffMs = initialBackoffMs;
      record.repairAtMs = now + initialBackoffMs;
      competingWrites = record.changesMs.length;
    }
    const report = now - record.lastReportMs >= windowMs;
    if (report) record.lastReportMs = now;
    if (now < record.repairAtMs) {
      return { action: 'defer', afterMs: record.repairAtMs - now, contended: true, competingWrites, report };
    }
    record.backoffMs = Math.min(record.backoffMs * 2, maxBackoffMs);
    record.repairAtMs = now + record.backoffMs;
    record.lastRepairMs = now;
    return { action: 'repair', afterMs: 0, contended: true, competingWrites, report };
  }

  /** The host object of `key` matches the desired state: drop its record once it has settled. */
  settled(key: string): void {
    const record = this.#keys.get(key);
    if (record !== undefined && this.#expired(record, this.#options.clock.now())) this.#keys.delete(key);
  }

  /** `key` is no longer synced (deleted, or its host copy removed): drop its record. */
  forget(key: string): void {
    this.#keys.delete(key);
  }

  /** Keys with a record (for tests and memory accounting). */
  get size(): number {
    return this.#keys.size;
  }

  /**
   * A record has run its course when nothing changed for a window (not contended), or when the
   * last repair came after the last foreign change and has stood for a window (contended).
   */
  #expired(record: KeyRecord, now: number): boolean {
    const { windowMs } = this.#options;
    if (!record.contended) return now - record.lastChangeMs > windowMs;
    return record.lastRepairMs >= record.lastChangeMs && now - record.lastRepairMs > windowMs;
  }
}

/**
 * The field managers other than `ownManager` recorded in the object's `managedFields`, sorted and
 * without duplicates: who else writes it, when the server tracks managed fields (real API servers
 * do; the devcluster does not, and then the list is empty).
 */
export function otherManagers(object: KubeObject, ownManager: string): string[] {
  const entries = object.metadata?.['managedFields'];
  if (!Array.isArray(entries)) return [];
  const names = new Set<string>();
  for (const entry of entries as unknown[]) {
    const manager = (entry as { manager?: unknown } | null)?.manager;
    if (typeof manager === 'string' && manager !== '' && manager !== ownManager) names.add(manager);
  }
  return [...names].sort();
}
