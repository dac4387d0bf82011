// SeededRandom lives in src/testbed/ so the chaos benchmark (plain .mjs on dist/) draws the same
// numbers as the tests; tests import it from here.
export * from '../../src/testbed/seeded-random.js';
