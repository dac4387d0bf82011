// Chaos: a seeded random workload (virtual Endpoints and Services; access keys and
// token reviews through the management API) against a spawned `vcsync start`, with a fault proxy
// in front of each API server, API-server restarts (devcluster --data-dir, same port) and vcsync
// restarts (SIGTERM, SIGKILL); then faults stop and the host and the key store must match what the
// operations require. The run is the same code as test/integration/chaos/syncer-chaos.test.ts
// (build/testbed/chaos/chaos-run.js, built from testbed/chaos): build first,
// `npm run build && npm run build:testbed`. Exit 1 when anything differs or convergence missed the goal.
// Results: benchmarks/results/chaos.json (chaos-real-host.json with --host real; no README table rows).
import { benchArgs, HOST_CHOICES, HOST_USAGE, printSummary, round, writeResult } from './lib/bench-run.mjs';

const USAGE = [
  'usage: node --no-node-snapshot benchmarks/chaos.mjs [--quick] [--host devcluster|real] [--operations 10000] [--fault-rate 0.05] [--api-restarts 3] [--vcsync-restarts 3] [--seed N] [--goal-seconds 30] [--log-dir DIR]',
  'A seeded chaos run; --quick: 600 operations, 1 restart of each. --seed replays a run (default: random, printed).',
  `${HOST_USAGE} (with real, kube-apiserver is the API server restarted on the host side)`,
  '--log-dir keeps every process log (vcsync at debug level). Build first: npm run build && npm run build:testbed',
].join('\n');
const args = benchArgs({
  usage: USAGE,
  numbers: {
    operations: (quick) => (quick ? 600 : 10_000),
    'fault-rate': 0.05,
    'api-restarts': (quick) => (quick ? 1 : 3),
    'vcsync-restarts': (quick) => (quick ? 1 : 3),
    seed: () => Math.floor(Math.random() * 2 ** 31),
    'goal-seconds': 30,
  },
  strings: { 'log-dir': '', host: 'devcluster' },
  choices: { host: HOST_CHOICES },
});

const { runChaos } = await import('../build/testbed/chaos/chaos-run.js');
const report = await runChaos({
  seed: args.seed,
  host: args.host,
  operations: args.operations,
  faultRate: args['fault-rate'],
  apiServerRestarts: args['api-restarts'],
  vcsyncRestarts: args['vcsync-restarts'],
  namesPerNamespace: args.operations >= 5_000 ? 100 : 40,
  convergenceTimeoutMs: Math.max(60_000, args['goal-seconds'] * 2_000),
  ...(args['log-dir'] !== '' ? { logDir: args['log-dir'] } : {}),
  log: (line) => console.log(line),
});
const faultsByKind = Object.fromEntries(Object.keys(report.faults.virtual).map((kind) => [kind, report.faults.virtual[kind] + report.faults.host[kind]]));
const goalMet = report.convergenceSeconds !== undefined && report.convergenceSeconds <= args['goal-seconds'];
await writeResult(args.host === 'real' ? 'chaos-real-host' : 'chaos', {
  seed: report.seed,
  host: args.host,
  operations: report.operations,
  faultRate: args['fault-rate'],
  faults: { ...report.faults, byKind: faultsByKind },
  restarts: report.restarts,
  convergenceSeconds: round(report.convergenceSeconds ?? Number.NaN),
  goalSeconds: args['goal-seconds'],
  goalMet,
  expectedHostObjects: report.expectedHostObjects,
  differences: report.differences.length,
  differenceList: report.differences.slice(0, 50),
  durationSeconds: round(report.durationSeconds),
});
printSummary(`chaos, seed ${report.seed} (replay: --seed ${report.seed})`, [
  ['operations', `${report.operations.total} (${Object.entries(report.operations.byKind).map(([kind, count]) => `${kind} ${count}`).join(', ')})`],
  ['faults', `${report.faults.total} (${Object.entries(faultsByKind).filter(([, count]) => count > 0).map(([kind, count]) => `${kind} ${count}`).join(', ')})`],
  ['restarts', `API server ${report.restarts.apiServer}, vcsync ${report.restarts.vcsyncTerm} SIGTERM + ${report.restarts.vcsyncKill} SIGKILL`],
  ['convergence', report.convergenceSeconds === undefined ? 'not converged' : `${round(report.convergenceSeconds)} s after faults stopped (goal ${args['goal-seconds']} s)`],
  ['host objects', String(report.expectedHostObjects)],
  ['differences', String(report.differences.length)],
  ['duration', `${round(report.durationSeconds)} s`],
]);
for (const difference of report.differences.slice(0, 50)) console.log(`  difference: ${difference}`);
process.exit(report.differences.length === 0 && goalMet ? 0 : 1);
