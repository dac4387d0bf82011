import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { Counter, type Registry } from 'prom-client';
import { realClock, sleep, type Clock } from '../kube/clock.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { trimAllocator } from './allocator-trim.js';
import type { Runnable } from './runnable.js';

/** Two readings of the V8 heap, in bytes. */
export interface HeapSample {
  /** Bytes in live and not yet collected objects (`used_heap_size`). */
  readonly usedBytes: number;
  /** Bytes of heap pages V8 holds from the system (`total_heap_size`). */
  readonly committedBytes: number;
  /** CPU time the process has used so far, user and system, in µs. */
  readonly cpuMicros: number;
}

/**
 * The heap as the reclaimer sees it: readings, and V8's memory-saving mode. In that mode
 * (`--optimize-for-size`) V8's memory reducer runs its compacting collections on an idle
 * process and gives the emptied pages back; out of it, on a process that has just allocated a lot
 * and then stopped, the reducer keeps waiting for an allocation rate it measures only at the next
 * collection, which an idle process never makes.
 */
export interface HeapControl {
  sample(): HeapSample;
  setMemorySaving(on: boolean): void;
  /**
   * Gives the C allocator's free pages back to the system (what Node allocates outside V8's heap);
   * true when some were, false when none were or the allocator offers no way.
   */
  trimAllocator(): boolean;
}

/** V8's heap of this process. The mode is a V8 flag changed at run time (`v8.setFlagsFromString`). */
export const v8HeapControl: HeapControl = Object.freeze({
  sample(): HeapSample {
    const statistics = getHeapStatistics();
    const cpu = process.cpuUsage();
    return { usedBytes: statistics.used_heap_size, committedBytes: statistics.total_heap_size, cpuMicros: cpu.user + cpu.system };
  },
  setMemorySaving(on: boolean): void {
    setFlagsFromString(on ? '--optimize-for-size' : '--no-optimize-for-size');
  },
  trimAllocator,
});

/** Options of {@link HeapReclaimer}. */
export interface HeapReclaimerOptions {
  /** The heap watched and reduced. Default {@link v8HeapControl}. */
  heap?: HeapControl;
  /** How often the heap is read, in ms. Default 2 000. */
  pollMs?: number;
  /** Committed bytes above those after the last reclaim (or at start) that make a burst worth reclaiming. Default 32 MiB. */
  growthBytes?: number;
  /** The process is quiet when its used heap moved less than this between two readings, in bytes. Default 4 MiB. */
  quietBytes?: number;
  /** …and it used less than this share of one core between them. Default 0.05. */
  quietCpuShare?: number;
  /**
   * While reclaiming, work resumed when the process used this share of one core between two
   * readings and the reducer neither collected nor gave pages back (its marking alone took up to
   * 0.17 of a core on 50,000 slices). Default 0.5.
   */
  busyCpuShare?: number;
  /** Longest time the memory-saving mode stays on for one reclaim, in ms (V8's reducer starts within 8 s). Default 30 000. */
  reclaimWindowMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Where `vcsync_heap_reclaims_total` is registered. Default none (not exported). */
  registry?: Registry;
}

/** What makes a heap worth reclaiming and a process quiet (see {@link HeapReclaimerOptions}). */
export interface ReclaimLimits {
  readonly growthBytes: number;
  readonly quietBytes: number;
  readonly quietCpuShare: number;
  readonly busyCpuShare: number;
}

/**
 * Whether the process was quiet between two readings `elapsedMs` apart: its used heap moved by
 * less than `quietBytes` and it used less than `quietCpuShare` of a core.
 */
export function quietBetween(previous: HeapSample, current: HeapSample, elapsedMs: number, limits: ReclaimLimits): boolean {
  const heapStill = Math.abs(current.usedBytes - previous.usedBytes) < limits.quietBytes;
  const cpuIdle = current.cpuMicros - previous.cpuMicros < limits.quietCpuShare * elapsedMs * 1000;
  return heapStill && cpuIdle;
}

/**
 * Whether work resumed between two readings `elapsedMs` apart while the memory-saving mode is on:
 * the used heap grew by `quietBytes` (work allocates), or the process used `busyCpuShare` of a core
 * while the reducer neither collected (used heap falling by `quietBytes`) nor gave pages back
 * (committed falling). CPU alone is not enough: the reducer's marking and compaction, the work the
 * mode is on for, spend it too (on every thread, which the process' CPU time counts), before and
 * without the used heap falling.
 */
export function resumedWhileReclaiming(previous: HeapSample, current: HeapSample, elapsedMs: number, limits: ReclaimLimits): boolean {
  const delta = current.usedBytes - previous.usedBytes;
  if (delta >= limits.quietBytes) return true;
  const reducerAtWork = delta <= -limits.quietBytes || current.committedBytes < previous.committedBytes;
  const busy = current.cpuMicros - previous.cpuMicros >= limits.busyCpuShare * elapsedMs * 1000;
  return busy && !reducerAtWork;
}

/**
 * Whether the memory reducer has run and settled since the reclaim began at `before`: the used
 * heap fell by `quietBytes` (a collection), the committed pages fell too (given back), and they
 * stood still since the `previous` reading. A restart's or an initial sync's growth is mostly the
 * caches it filled, so its committed heap never falls to half; this is when the pages it could give
 * back are back.
 */
export function reducerSettled(before: HeapSample, previous: HeapSample, now: HeapSample, limits: ReclaimLimits): boolean {
  const collected = before.usedBytes - now.usedBytes >= limits.quietBytes;
  const givenBack = now.committedBytes < before.committedBytes;
  return collected && givenBack && now.committedBytes >= previous.committedBytes;
}

/** Whether the heap's pages grew by `growthBytes` since `baselineCommittedBytes`. */
export function heapGrown(current: HeapSample, baselineCommittedBytes: number, limits: ReclaimLimits): boolean {
  return current.committedBytes - baselineCommittedBytes >= limits.growthBytes;
}

/**
 * Gives the heap pages of a finished burst (an initial sync or a restart's relist and reconciles:
 * list pages, parsed objects, reconcile garbage promoted while the burst ran) back to the system.
 * V8 alone keeps them until its next full collection, which an idle daemon does not make: the
 * process would hold its peak. When the heap has grown by `growthBytes` and the process went quiet,
 * it turns V8's memory-saving mode on until the heap has shrunk (or the reducer's collection has
 * settled) or `reclaimWindowMs` passed, then off again (the mode costs CPU on busy work, so it is
 * never left on). A reclaim that finished then asks the C allocator to give back its free pages
 * too (glibc's `malloc_trim`): the buffers Node read the burst into were freed between live
 * chunks, where `free()` alone keeps them. Runs on every replica.
 */
export class HeapReclaimer implements Runnable {
  readonly name = 'heap-reclaimer';
  readonly needsLeader = false;
  readonly #heap: HeapControl;
  readonly #pollMs: number;
  readonly #limits: ReclaimLimits;
  readonly #windowMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #reclaims: Counter | undefined;

  constructor(options: HeapReclaimerOptions = {}) {
    this.#heap = options.heap ?? v8HeapControl;
    this.#pollMs = options.pollMs ?? 2000;
    this.#limits = Object.freeze({
      growthBytes: options.growthBytes ?? 32 * 2 ** 20,
      quietBytes: options.quietBytes ?? 4 * 2 ** 20,
      quietCpuShare: options.quietCpuShare ?? 0.05,
      busyCpuShare: options.busyCpuShare ?? 0.5,
    });
    this.#windowMs = options.reclaimWindowMs ?? 30_000;
    this.#clock = options.clock ?? realClock;
    this.#logger = (options.logger ?? silentLogger()).child({ component: 'heap-reclaimer' });
    this.#reclaims =
      options.registry === undefined
        ? undefined
        : new Counter({ name: 'vcsync_heap_reclaims_total', help: 'Times the heap pages of a finished burst were given back to the system.', registers: [options.registry] });
  }

  /** Watches the heap until `signal` aborts; leaves the memory-saving mode off. */
  async run(signal: AbortSignal): Promise<void> {
    let previous = this.#heap.sample();
    let baseline = previous.committedBytes;
    // Two quiet readings in a row: one still reading may fall between two steps of a burst.
    let quietReadings = 0;
    while (await sleep(this.#clock, this.#pollMs, signal)) {
      const current = this.#heap.sample();
      quietReadings = quietBetween(previous, current, this.#pollMs, this.#limits) ? quietReadings + 1 : 0;
      previous = current;
      if (quietReadings < 2 || !heapGrown(current, baseline, this.#limits)) {
        baseline = Math.min(baseline, current.committedBytes);
        continue;
      }
      const finished = await this.#reclaim(current, baseline, signal);
      // The collections that gave V8's pages back also freed the burst's buffers outside its heap.
      if (finished) this.#trimAllocator();
      previous = this.#heap.sample();
      quietReadings = 0;
      // Work that resumed before anything was given back leaves the growth to reclaim later.
      if (finished) baseline = previous.committedBytes;
    }
  }

  #trimAllocator(): void {
    const started = performance.now();
    const released = this.#heap.trimAllocator();
    this.#logger.debug({ released, ms: Math.round(performance.now() - started) }, 'free pages of the C allocator given back');
  }

  /** True when the heap shrank or the window passed; false when work resumed (or the signal fired) first. */
  async #reclaim(before: HeapSample, baselineCommittedBytes: number, signal: AbortSignal): Promise<boolean> {
    const started = this.#clock.now();
    this.#heap.setMemorySaving(true);
    try {
      // Done once half of the growth is given back, or the reducer has collected and its pages
      // are given back (a burst that grew the caches keeps most of its growth live), or at the
      // end of the window.
      const target = before.committedBytes - (before.committedBytes - baselineCommittedBytes) / 2;
      let previous = before;
      while (this.#clock.now() - started < this.#windowMs) {
        if (!(await sleep(this.#clock, this.#pollMs, signal))) return false;
        const now = this.#heap.sample();
        if (now.committedBytes <= target || reducerSettled(before, previous, now, this.#limits)) {
          this.#reclaims?.inc();
          this.#logger.debug({ committedBefore: before.committedBytes, committedAfter: now.committedBytes, used: now.usedBytes, ms: this.#clock.now() - started }, 'heap pages of a finished burst given back');
          return true;
        }
        // The mode slows busy work: leave it as soon as work resumes (the reducer's own collections are not work).
        if (resumedWhileReclaiming(previous, now, this.#pollMs, this.#limits)) return false;
        previous = now;
      }
      return true;
    } finally {
      this.#heap.setMemorySaving(false);
    }
  }
}
