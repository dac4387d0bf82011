/** The smallest buffer {@link ReusedBuffers} hands out, bytes: a few socket reads. */
const MIN_BYTES = 256 * 1024;

/** Buffers kept for reuse at most; one per answer read at once is all a client needs. */
const MAX_KEPT = 2;

/**
 * Buffers to join the chunks of an answer into, reused from one answer to the next. Each answer of
 * a list was joined into freshly allocated memory, whose first touch costs several times the copy
 * itself (Buffer.concat of a 0.7 MiB page: ~2 ms against ~0.1 ms into a buffer already used,
 * measured on the machine of the benchmarks); the pages of one list are alike in size, so a buffer
 * taken back after a page fits the next.
 *
 * The buffers given back are held through `WeakRef`s: between pages they survive, and once the
 * lists are done the next full garbage collection frees them, so an idle client holds no buffer.
 * Not safe for two readers of one buffer: {@link ReusedBuffers.take} hands each out once until it
 * is given back.
 */
export class ReusedBuffers {
  #kept: Array<WeakRef<Buffer>> = [];

  /** A buffer of at least `size` bytes (contents unspecified), one given back before when one fits. */
  take(size: number): Buffer {
    for (let i = 0; i < this.#kept.length; i += 1) {
      const buffer = this.#kept[i]?.deref();
      if (buffer === undefined) {
        this.#kept.splice(i, 1);
        i -= 1;
      } else if (buffer.length >= size) {
        this.#kept.splice(i, 1);
        return buffer;
      }
    }
    let capacity = MIN_BYTES;
    while (capacity < size) capacity *= 2;
    return Buffer.allocUnsafeSlow(capacity);
  }

  /** Gives back a buffer from {@link ReusedBuffers.take}, which must not be used afterwards. */
  give(buffer: Buffer): void {
    this.#kept = this.#kept.filter((ref) => ref.deref() !== undefined);
    if (this.#kept.length >= MAX_KEPT) {
      // Keep the larger ones: a smaller buffer is the one that fits fewer pages.
      const smallest = this.#kept.reduce((a, b) => ((a.deref()?.length ?? 0) <= (b.deref()?.length ?? 0) ? a : b));
      if ((smallest.deref()?.length ?? 0) >= buffer.length) return;
      this.#kept.splice(this.#kept.indexOf(smallest), 1);
    }
    this.#kept.push(new WeakRef(buffer));
  }
}
