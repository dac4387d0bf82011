// Preloaded into a measured process (`node --expose-gc --import benchmarks/lib/heap-probe.mjs ...`)
// by benchmarks that report its live heap: on SIGUSR2 it runs a full garbage collection (twice,
// so weak references and finalizers of the first one are gone too) and writes
// process.memoryUsage() as JSON to `<VCSYNC_HEAP_PROBE_DIR>/heap-<pid>.json`, with what it was
// before the gc (`beforeGc`) and V8's heap spaces after it (`spaces`: committed and resident bytes
// per space, to tell the heap pages V8 keeps from the bytes live in them). Benchmarks only: the
// daemon itself never loads it.
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';

const dir = process.env['VCSYNC_HEAP_PROBE_DIR'];
if (dir !== undefined && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    const beforeGc = process.memoryUsage();
    globalThis.gc();
    globalThis.gc();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size, physical: space.physical_space_size }]),
    );
    const file = join(dir, `heap-${process.pid}.json`);
    // Written aside and renamed so the reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ ...process.memoryUsage(), beforeGc, spaces }));
    renameSync(`${file}.tmp`, file);
  });
}
