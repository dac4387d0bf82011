// Preloaded into a measured process (`node --expose-gc --import benchmarks/lib/heap-probe.mjs ...`)
// by benchmarks that report its live heap: on SIGUSR2 it runs a full garbage collection (twice,
// so weak references and finalizers of the first one are gone too) and writes
// process.memoryUsage() as JSON to `<VCSYNC_HEAP_PROBE_DIR>/heap-<pid>.json`. Benchmarks only: the
// daemon itself never loads it.
import { writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env['VCSYNC_HEAP_PROBE_DIR'];
if (dir !== undefined && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    const file = join(dir, `heap-${process.pid}.json`);
    // Written aside and renamed so the reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  });
}
