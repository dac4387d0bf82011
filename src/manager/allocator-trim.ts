import { createRequire } from 'node:module';

/** The subset of koffi this file uses. */
interface Koffi {
  load(path: string): { func(signature: string): (pad: number) => number };
}

/** glibc's `malloc_trim`, once looked up; null where there is none. */
let mallocTrim: ((pad: number) => number) | null | undefined;

/**
 * Gives the C allocator's free pages back to the system with glibc's `malloc_trim(0)`; true when
 * some were, false when none were or there is no glibc (musl, macOS) or no way to call it.
 *
 * Memory that Node allocates outside V8's heap (socket reads, the HTTP parser's body chunks, the
 * buffers a list page is read into) comes from glibc's malloc. After a burst (an initial sync or a
 * restart's relist) most of it is freed, but between chunks that stay live, and glibc gives back only
 * the top of an arena on `free()`: the process keeps the burst's peak of those pages. `malloc_trim`
 * walks every arena and releases whole free pages (since glibc 2.8), as Ruby does after a full
 * collection. Nothing in Node calls it, so it is reached through koffi, a C FFI whose npm package
 * ships prebuilt addons (nothing is compiled at install); koffi is loaded on the first call, not at
 * start.
 */
export function trimAllocator(): boolean {
  if (mallocTrim === undefined) mallocTrim = loadMallocTrim();
  return mallocTrim !== null && mallocTrim(0) === 1;
}

function loadMallocTrim(): ((pad: number) => number) | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    // `libc.so.6` is glibc's soname; musl has none, so a musl process ends here.
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
  } catch {
    return null;
  }
}
