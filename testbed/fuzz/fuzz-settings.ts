// The fuzzers' run settings from the environment, shared by every fuzz test: a failure prints its
// seed, and the same seed replays the same cases.

import { seedFromEnvironment } from '../seeded-random.js';

/** The seed of this run: `VCSYNC_FUZZ_SEED` when set (to replay), else `fallback`. */
export function fuzzSeed(fallback: number): number {
  return seedFromEnvironment('VCSYNC_FUZZ_SEED', fallback);
}

/** How many variants to try: `VCSYNC_FUZZ_ITERATIONS` when set (the longer mode), else `fallback`. */
export function fuzzIterations(fallback: number): number {
  const written = process.env['VCSYNC_FUZZ_ITERATIONS'];
  if (written === undefined || written === '') return fallback;
  const count = Number(written);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`VCSYNC_FUZZ_ITERATIONS must be a positive integer, got ${JSON.stringify(written)}`);
  return count;
}
