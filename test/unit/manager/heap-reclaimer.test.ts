import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { HeapReclaimer, heapGrown, quietBetween, reducerSettled, resumedWhileReclaiming, type HeapControl, type HeapSample } from '../../../src/manager/heap-reclaimer.js';

const MiB = 2 ** 20;
const LIMITS = { growthBytes: 32 * MiB, quietBytes: 4 * MiB, quietCpuShare: 0.05, busyCpuShare: 0.5 };
const POLL_MS = 2000;

/** A heap whose readings the test sets, recording the mode changes. */
class ScriptedHeap implements HeapControl {
  now: HeapSample = { usedBytes: 20 * MiB, committedBytes: 30 * MiB, cpuMicros: 0 };
  readonly modes: boolean[] = [];
  /** The mode (on or off) each allocator trim found. */
  readonly trims: boolean[] = [];
  sample(): HeapSample {
    return this.now;
  }
  setMemorySaving(on: boolean): void {
    this.modes.push(on);
  }
  trimAllocator(): boolean {
    this.trims.push(this.modes.at(-1) ?? false);
    return true;
  }
  /** The next reading: `cpuMs` of CPU used since the last one, the heap as given. */
  set(usedMiB: number, committedMiB: number, cpuMs = 0): void {
    this.now = { usedBytes: usedMiB * MiB, committedBytes: committedMiB * MiB, cpuMicros: this.now.cpuMicros + cpuMs * 1000 };
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

function start(heap: ScriptedHeap) {
  const clock = new FakeClock();
  const registry = new Registry();
  const reclaimer = new HeapReclaimer({ heap, clock, registry, pollMs: POLL_MS, reclaimWindowMs: 30_000 });
  const stop = new AbortController();
  const running = reclaimer.run(stop.signal);
  const poll = async (): Promise<void> => {
    await settle();
    clock.advance(POLL_MS);
    await settle();
  };
  const reclaims = async (): Promise<number> => (await registry.getSingleMetric('vcsync_heap_reclaims_total')?.get())?.values[0]?.value ?? 0;
  return { poll, reclaims, stop: async () => { stop.abort(); await running; } };
}

/** A burst to 150 MiB committed, then two quiet readings: the reclaimer turns the mode on. */
async function burstThenQuiet(heap: ScriptedHeap, run: { poll: () => Promise<void> }): Promise<void> {
  heap.set(100, 150, 1900);
  await run.poll();
  heap.set(100, 150, 10);
  await run.poll();
  heap.set(100, 150, 10);
  await run.poll();
}

describe('quietBetween and heapGrown', () => {
  const at = (usedMiB: number, committedMiB: number, cpuMs: number): HeapSample => ({ usedBytes: usedMiB * MiB, committedBytes: committedMiB * MiB, cpuMicros: cpuMs * 1000 });

  it('calls a process quiet only when its heap stood still and it used almost no CPU', () => {
    expect(quietBetween(at(100, 150, 0), at(101, 150, 50), POLL_MS, LIMITS)).toBe(true);
    expect(quietBetween(at(100, 150, 0), at(110, 150, 50), POLL_MS, LIMITS)).toBe(false); // allocating
    expect(quietBetween(at(100, 150, 0), at(90, 150, 50), POLL_MS, LIMITS)).toBe(false); // collected
    expect(quietBetween(at(100, 150, 0), at(100, 150, 500), POLL_MS, LIMITS)).toBe(false); // busy at 25% of a core
  });

  it('while reclaiming, calls the reducer\'s own collection (heap falling, CPU spent) no resumed work', () => {
    expect(resumedWhileReclaiming(at(100, 150, 0), at(80, 140, 400), POLL_MS, LIMITS)).toBe(false); // the reducer collected
    expect(resumedWhileReclaiming(at(100, 150, 0), at(101, 150, 50), POLL_MS, LIMITS)).toBe(false); // still quiet
    expect(resumedWhileReclaiming(at(100, 150, 0), at(110, 150, 50), POLL_MS, LIMITS)).toBe(true); // allocating
    expect(resumedWhileReclaiming(at(100, 150, 0), at(100, 150, 1500), POLL_MS, LIMITS)).toBe(true); // busy at 75% of a core, nothing collected
    // What a restart against 50,000 slices showed: the reducer marking (CPU, nothing falling yet),
    // then compacting (pages given back, the used heap as it was).
    expect(resumedWhileReclaiming(at(178, 203, 0), at(178, 203, 101), POLL_MS, LIMITS)).toBe(false);
    expect(resumedWhileReclaiming(at(131, 160, 0), at(131, 136, 334), POLL_MS, LIMITS)).toBe(false);
    expect(resumedWhileReclaiming(at(131, 160, 0), at(131, 136, 1500), POLL_MS, LIMITS)).toBe(false); // pages given back: the reducer
  });

  it('calls the reducer settled once it collected, gave pages back, and the pages stood still', () => {
    const before = at(100, 150, 0);
    expect(reducerSettled(before, before, at(99, 150, 10), LIMITS)).toBe(false); // nothing collected yet
    expect(reducerSettled(before, before, at(95, 110, 400), LIMITS)).toBe(false); // collected, pages still falling
    expect(reducerSettled(before, at(95, 110, 400), at(95, 110, 410), LIMITS)).toBe(true);
    expect(reducerSettled(before, at(95, 150, 400), at(95, 150, 410), LIMITS)).toBe(false); // no page given back
  });

  it('calls a heap grown from growthBytes above the baseline', () => {
    expect(heapGrown(at(0, 61, 0), 30 * MiB, LIMITS)).toBe(false);
    expect(heapGrown(at(0, 62, 0), 30 * MiB, LIMITS)).toBe(true);
  });
});

describe('HeapReclaimer', () => {
  it('turns the memory-saving mode on after a burst once the process is quiet, and off once the heap shrank', async () => {
    const heap = new ScriptedHeap();
    const run = start(heap);
    heap.set(80, 120, 1800); // the burst: busy, allocating
    await run.poll();
    heap.set(100, 150, 1900);
    await run.poll();
    heap.set(100, 150, 10); // quiet once: not yet
    await run.poll();
    expect(heap.modes).toEqual([]);
    heap.set(100, 150, 10); // quiet twice
    await run.poll();
    expect(heap.modes).toEqual([true]);
    heap.set(100, 150, 10); // the reducer has not run yet
    await run.poll();
    expect(heap.modes).toEqual([true]);
    heap.set(60, 70, 300); // it ran: pages given back
    await run.poll();
    expect(heap.modes).toEqual([true, false]);
    expect(await run.reclaims()).toBe(1);
    expect(heap.trims).toEqual([false]); // once, after the mode is off
    await run.stop();
  });

  it('stays in the mode through the reducer\'s own collections, and counts the pages it gives back', async () => {
    const heap = new ScriptedHeap();
    const run = start(heap);
    await burstThenQuiet(heap, run);
    expect(heap.modes).toEqual([true]);
    heap.set(70, 140, 400); // a compacting collection: garbage freed, CPU spent, pages not yet given back
    await run.poll();
    expect(heap.modes).toEqual([true]);
    heap.set(70, 80, 100); // pages given back
    await run.poll();
    expect(heap.modes).toEqual([true, false]);
    expect(await run.reclaims()).toBe(1);
    await run.stop();
  });

  it('ends a reclaim whose growth stays live (a restart filled its caches) once the reducer settled, not at the window\'s end', async () => {
    const heap = new ScriptedHeap(); // baseline 30 MiB committed
    const run = start(heap);
    await burstThenQuiet(heap, run); // 100 used, 150 committed: half the growth would be 90
    expect(heap.modes).toEqual([true]);
    heap.set(92, 104, 600); // the reducer's collection: 92 MiB of the burst stay live
    await run.poll();
    expect(heap.modes).toEqual([true]);
    heap.set(92, 104, 20); // its pages are back and stay
    await run.poll();
    expect(heap.modes).toEqual([true, false]);
    expect(heap.trims).toEqual([false]);
    expect(await run.reclaims()).toBe(1);
    await run.stop();
  });

  it('leaves the mode as soon as work resumes, and reclaims that growth later', async () => {
    const heap = new ScriptedHeap();
    const run = start(heap);
    await burstThenQuiet(heap, run);
    expect(heap.modes).toEqual([true]);
    heap.set(130, 160, 1900); // a new burst
    await run.poll();
    expect(heap.modes).toEqual([true, false]);
    expect(await run.reclaims()).toBe(0);
    heap.set(130, 160, 10);
    await run.poll();
    heap.set(130, 160, 10);
    await run.poll();
    expect(heap.modes).toEqual([true, false, true]);
    await run.stop();
    expect(heap.modes).toEqual([true, false, true, false]);
    expect(heap.trims).toEqual([]); // nothing finished: the allocator is left alone while work runs
  });

  it('never touches the mode while the heap stays small', async () => {
    const heap = new ScriptedHeap();
    const run = start(heap);
    for (let i = 0; i < 10; i += 1) {
      heap.set(25, 40, 10);
      await run.poll();
    }
    expect(heap.modes).toEqual([]);
    await run.stop();
  });

  it('gives up after the window when the heap does not shrink, and waits for new growth', async () => {
    const heap = new ScriptedHeap();
    const run = start(heap);
    heap.set(100, 150, 1900);
    await run.poll();
    for (let i = 0; i < 2; i += 1) {
      heap.set(100, 150, 10);
      await run.poll();
    }
    expect(heap.modes).toEqual([true]);
    for (let i = 0; i < 15; i += 1) {
      heap.set(100, 150, 10);
      await run.poll();
    }
    expect(heap.modes).toEqual([true, false]);
    for (let i = 0; i < 5; i += 1) {
      heap.set(100, 150, 10);
      await run.poll();
    }
    expect(heap.modes).toEqual([true, false]);
    await run.stop();
  });
});
