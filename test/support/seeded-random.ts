// The generator lives in src/testbed/fuzz/ so the benchmarks (plain .mjs on dist/) share it; tests import it from here.
export * from '../../src/testbed/fuzz/seeded-random.js';
