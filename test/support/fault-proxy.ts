// The fault proxy lives in testbed/ so the chaos benchmark (plain .mjs on its build, build/testbed/) runs the same
// one as the tests; tests import it from here.
export * from '../../testbed/fault-proxy.js';
