// The fault proxy lives in src/testbed/ so the chaos benchmark (plain .mjs on dist/) runs the same
// one as the tests; tests import it from here.
export * from '../../src/testbed/fault-proxy.js';
