// The real control plane lives in testbed/ so the benchmarks (plain .mjs on its build, build/testbed/) start the
// same one as the tests; tests import it from here.
export * from '../../testbed/real-control-plane.js';
