// SeededRandom lives in src/testbed/ so the chaos benchmark (plain .mjs on dist/) draws the same
// numbers as the tests; tests import it from here.
export * from '../../src/testbed/seeded-random.js';

/**
 * The seed of a seeded test: `fixed` (what every CI run uses, so a run is the same each time), or
 * the integer in the environment variable `variable` when set, which replays another run. Tests
 * print the seed with the variable in their name, so a failure says how to replay it.
 */
export function seedFromEnvironment(variable: string, fixed: number): number {
  const written = process.env[variable];
  if (written === undefined || written === '') return fixed;
  const seed = Number(written);
  if (!Number.isSafeInteger(seed)) throw new Error(`${variable} must be an integer seed, got ${JSON.stringify(written)}; unset it to run the fixed seed ${fixed}`);
  return seed;
}
