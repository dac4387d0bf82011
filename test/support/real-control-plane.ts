// The real control plane lives in src/testbed/ so the benchmarks (plain .mjs on dist/) start the
// same one as the tests; tests import it from here as before.
export * from '../../src/testbed/real-control-plane.js';
