// SeededRandom lives in testbed/ so the chaos benchmark (plain .mjs on its build, build/testbed/) draws the same
// numbers as the tests; tests import it from here.
export * from '../../testbed/seeded-random.js';
