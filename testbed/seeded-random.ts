/** A small deterministic PRNG (mulberry32): `next()` in [0, 1); the same seed gives the same numbers. */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  chars(alphabet: string, length: number): string {
    let out = '';
    for (let index = 0; index < length; index += 1) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let index = 0; index < length; index += 1) out[index] = this.int(256);
    return out;
  }
}

/**
 * The seed of a seeded test or run: `fixed` (what every CI run uses, so a run is the same each
 * time), or the integer in the environment variable `variable` when set, which replays another
 * run. Tests print the seed with the variable in their name, so a failure says how to replay it.
 */
export function seedFromEnvironment(variable: string, fixed: number): number {
  const written = process.env[variable];
  if (written === undefined || written === '') return fixed;
  const seed = Number(written);
  if (!Number.isSafeInteger(seed)) throw new Error(`${variable} must be an integer seed, got ${JSON.stringify(written)}; unset it to run the fixed seed ${fixed}`);
  return seed;
}
