import { defineConfig } from 'vitest/config';

// Integration tests start real HTTP servers and child processes; on a loaded 2-core machine a
// generous per-test timeout keeps them deterministic (they wait on conditions, never on sleeps).
export default defineConfig({
  // testbed/ imports src/ modules as `#vcsync/...` (package.json "imports"): the `vcsync-source`
  // condition resolves them to the same src/ files the tests import, so both share one module
  // instance. The other three are Vite's default server conditions, which setting the list replaces.
  ssr: { resolve: { conditions: ['vcsync-source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No --no-node-snapshot: like the daemon, test processes never load isolated-vm; the patch
    // sandbox's worker processes do, forked with the flag.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
