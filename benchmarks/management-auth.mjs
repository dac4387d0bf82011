// Management API: what an authenticated GET costs, against the same GET on devcluster's core.
// Every server runs in its own Node process (benchmarks/lib/auth-server-process.mjs, built code
// from dist/: build first), over HTTPS; this process is the load generator: keep-alive TLS
// connections sending pre-serialised requests (benchmarks/lib/raw-https-client.mjs), one request
// in flight per connection ("client"). Measured in the same run, each a median of `--rounds`:
//
//   baseline  GET of one ConfigMap on a devcluster (HTTPS, bearer-token auth), the ConfigMap
//             padded to the byte size of the management answer;
//   hit       GET of one OwnedAccessKey on the management server (started as `vcsync dev` does:
//             HTTPS from certificate files, the devcluster storage engine in memory) with a key of
//             user alice whose scope is the platformCLI role, the key in the authenticator's cache;
//   miss      the same GET on a second management server whose key cache holds 1 key, the
//             clients rotating over `--miss-keys` keys of alice so that every request misses
//             the cache (the key found through the index of key hashes and read by name, as
//             after an eviction);
//   creates   OwnedAccessKeys created per second by the admin key, against ConfigMaps of the
//             same size created on the devcluster.
//
// At 1 and `--clients` concurrent clients. Then the key-count sweep: on the miss server, filled
// with other keys up to each of `--key-counts` stored keys, the server CPU per request of a miss
// (the clients rotating as above) against a hit (every client the same key) on the same server
// and connections, at `--clients` clients, `--rounds` rounds; a round takes turns in slices
// (hit, miss, miss, hit, …: `SWEEP_SLICES` of each, `--seconds` in all for each), so that the
// swings of a loaded machine fall on both alike. `--sweep-only` measures only the sweep and
// writes no result file. `--profile DIR` runs the first management server with
// `node --cpu-prof --cpu-prof-dir DIR`. Results: benchmarks/results/management-auth.json.
import os from 'node:os';
import { join } from 'node:path';
import { benchArgs, median, printSummary, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { openConnections, runLoad } from './lib/raw-https-client.mjs';
import { expectStatus, request, startServer } from './lib/server-process-client.mjs';

const options = benchArgs({
  usage:
    'usage: node benchmarks/management-auth.mjs [--quick] [--rounds 3] [--clients 64] [--seconds 4] [--creates 600] [--miss-keys 128] [--key-counts 500,10000] [--sweep-only] [--profile DIR]\n' +
    '(build first: npm run build)',
  numbers: { rounds: 3, clients: 64, seconds: (quick) => (quick ? 1 : 4), creates: (quick) => (quick ? 100 : 600), 'miss-keys': 128 },
  strings: { profile: '', 'key-counts': (quick) => (quick ? '200,1000' : '500,10000') },
  flags: ['sweep-only'],
});
const KEY_COUNTS = options['key-counts'].split(',').map(Number);
if (KEY_COUNTS.some((count) => !Number.isSafeInteger(count) || count < 1)) {
  console.error(`--key-counts takes numbers of stored keys separated by commas, got "${options['key-counts']}"`);
  process.exit(2);
}
/** The goal of a miss at every key count: at most this many times the CPU of a hit on the same server. */
const MISS_GOAL_RATIO = 1.2;
/** Slices of a hit and of a miss per round of the sweep, taking turns. */
const SWEEP_SLICES = 4;
const SWEEP_WARMUP_MS = 250;
const CLIENTS = options.clients;
const DURATION_MS = options.seconds * 1000;
const WARMUP_MS = Math.min(1000, DURATION_MS / 2);
const CREATE_CONCURRENCY = 16;
const TOKEN = 'bench-devcluster-token';
const GROUP_VERSION = 'management.loft.sh/v1';
const KEYS_PATH = `/apis/${GROUP_VERSION}/ownedaccesskeys`;
const CONFIGMAPS_PATH = '/api/v1/namespaces/default/configmaps';

/** Creates an OwnedAccessKey of alice (platformCLI scope) as the admin; returns its generated key. */
async function createReaderKey(server, name) {
  const body = { apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'alice', displayName: `benchmark key ${name}`, scope: { roles: [{ role: 'platformCLI' }] } } };
  const answer = await expectStatus(server, request(server, 'POST', KEYS_PATH, server.adminKey, body), 201, `create ${name}`);
  return JSON.parse(answer.body.toString('utf8')).spec.key;
}

/** `count` creates, `CREATE_CONCURRENCY` in flight: objects per second. */
async function measureCreates(server, token, path, bodyOf, count) {
  const connections = await openConnections(server.url, server.caCertPem, CREATE_CONCURRENCY);
  try {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      connections.map(async (connection) => {
        for (;;) {
          const index = next++;
          if (index >= count) return;
          const answer = await connection.send(request(server, 'POST', path, token, bodyOf(index)));
          if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 400)}`);
        }
      }),
    );
    return (count / (performance.now() - started)) * 1000;
  } finally {
    for (const connection of connections) connection.close();
  }
}

async function measureGets(server, clients, requestFor) {
  const connections = await openConnections(server.url, server.caCertPem, clients);
  try {
    return await runLoad({ connections, requestFor, warmupMs: WARMUP_MS, durationMs: DURATION_MS, serverPid: server.pid });
  } finally {
    for (const connection of connections) connection.close();
  }
}

const dir = await tempDir('management-auth');
const loadBefore = os.loadavg();
const servers = [];
const runs = { baseline: { 1: [], [CLIENTS]: [] }, hit: { 1: [], [CLIENTS]: [] }, miss: { 1: [], [CLIENTS]: [] }, createKeys: [], createConfigMaps: [] };
/** Per stored-key count: the runs of a hit and of a miss on the miss server, taking turns. */
const sweep = [];
let sizes;
try {
  const profileFlags = options.profile !== '' ? ['--cpu-prof', '--cpu-prof-dir', options.profile] : [];
  const management = await startServer(['management', join(dir.path, 'management')], profileFlags);
  servers.push(management);
  const missServer = await startServer(['management', join(dir.path, 'management-miss'), '1']);
  servers.push(missServer);
  const devcluster = await startServer(['devcluster', join(dir.path, 'devcluster'), TOKEN]);
  servers.push(devcluster);

  // The measured object: alice's key, read by alice's key (ownership and scope both checked).
  const readerKey = await createReaderKey(management, 'bench-reader');
  const hitRequest = request(management, 'GET', `${KEYS_PATH}/bench-reader`, readerKey);
  const managementBytes = (await expectStatus(management, hitRequest, 200, 'GET bench-reader')).body.length;
  // The baseline object: a ConfigMap padded to the same answer size.
  const configMap = (name, pad) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad } });
  await expectStatus(devcluster, request(devcluster, 'POST', CONFIGMAPS_PATH, TOKEN, configMap('bench-probe', '')), 201, 'create probe ConfigMap');
  const probeBytes = (await expectStatus(devcluster, request(devcluster, 'GET', `${CONFIGMAPS_PATH}/bench-probe`, TOKEN), 200, 'GET probe')).body.length;
  const pad = 'x'.repeat(Math.max(0, managementBytes - probeBytes + 'bench-probe'.length - 'bench'.length));
  await expectStatus(devcluster, request(devcluster, 'POST', CONFIGMAPS_PATH, TOKEN, configMap('bench', pad)), 201, 'create ConfigMap');
  const baselineRequest = request(devcluster, 'GET', `${CONFIGMAPS_PATH}/bench`, TOKEN);
  const baselineBytes = (await expectStatus(devcluster, baselineRequest, 200, 'GET bench')).body.length;
  sizes = { managementAnswerBytes: managementBytes, baselineAnswerBytes: baselineBytes };

  // The miss server: the same object, and the keys the clients rotate over.
  await createReaderKey(missServer, 'bench-reader');
  const missKeys = [];
  for (let index = 0; index < Math.max(2, options['miss-keys']); index += 1) missKeys.push(await createReaderKey(missServer, `miss-${index}`));
  const missRequests = missKeys.map((key) => request(missServer, 'GET', `${KEYS_PATH}/bench-reader`, key));
  // Connection i alternates between keys i and i + half: no two consecutive lookups share a key.
  const half = Math.floor(missRequests.length / 2);
  const missRequestFor = (index, n) => missRequests[((index % half) + (n % 2) * half) % missRequests.length];
  // Every key used once before measuring: its first use writes status.lastActivity.
  for (const missRequest of missRequests) await expectStatus(missServer, missRequest, 200, 'first use of a miss key');

  let created = 0;
  for (let round_ = 0; round_ < (options['sweep-only'] ? 0 : options.rounds); round_ += 1) {
    for (const clients of [1, CLIENTS]) {
      runs.baseline[clients].push(await measureGets(devcluster, clients, () => baselineRequest));
      runs.hit[clients].push(await measureGets(management, clients, () => hitRequest));
      runs.miss[clients].push(await measureGets(missServer, clients, missRequestFor));
    }
    const keyBody = (index) => ({ apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', metadata: { name: `created-${created + index}` }, spec: { user: 'bob', displayName: `created ${created + index}` } });
    runs.createKeys.push(await measureCreates(management, management.adminKey, KEYS_PATH, keyBody, options.creates));
    // A ConfigMap the size of the create answer of a key (its spec.key shown once).
    runs.createConfigMaps.push(await measureCreates(devcluster, TOKEN, CONFIGMAPS_PATH, (index) => configMap(`created-${created + index}`, 'x'.repeat(200)), options.creates));
    created += options.creates;
  }

  // The sweep: the miss server filled with keys of another user (never presented) up to each count.
  const sweepHitRequest = missRequests[0];
  let stored = (await listedKeys(missServer)).length;
  let filler = 0;
  for (const count of [...KEY_COUNTS].sort((a, b) => a - b)) {
    const more = count - stored;
    if (more > 0) {
      const fillerBody = (index) => ({ apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', metadata: { name: `filler-${filler + index}` }, spec: { user: 'carol', displayName: `filler ${filler + index}` } });
      await measureCreates(missServer, missServer.adminKey, KEYS_PATH, fillerBody, more);
      filler += more;
    }
    stored = (await listedKeys(missServer)).length;
    const point = { storedKeys: stored, hit: [], miss: [], loadAverage: os.loadavg().map((value) => round(value)) };
    const connections = await openConnections(missServer.url, missServer.caCertPem, CLIENTS);
    try {
      const requestFor = { hit: () => sweepHitRequest, miss: missRequestFor };
      for (let round_ = 0; round_ < options.rounds; round_ += 1) {
        const slices = { hit: [], miss: [] };
        for (let slice = 0; slice < SWEEP_SLICES; slice += 1) {
          for (const kind of slice % 2 === 0 ? ['hit', 'miss'] : ['miss', 'hit']) {
            slices[kind].push(await runLoad({ connections, requestFor: requestFor[kind], warmupMs: SWEEP_WARMUP_MS, durationMs: DURATION_MS / SWEEP_SLICES, serverPid: missServer.pid }));
          }
        }
        point.hit.push(joinSlices(slices.hit));
        point.miss.push(joinSlices(slices.miss));
      }
    } finally {
      for (const connection of connections) connection.close();
    }
    sweep.push(point);
    console.log(`${stored} keys stored: hit ${round(median(point.hit.map((run) => run.serverCpuUsPerRequest)), 0)} µs, miss ${round(median(point.miss.map((run) => run.serverCpuUsPerRequest)), 0)} µs per request (load ${point.loadAverage.join(' / ')})`);
  }
} finally {
  for (const server of servers) await server.stop();
  await dir.dispose();
}

/**
 * One measurement from the slices of a round: requests, time and CPU added up (CPU per request is
 * the total CPU over the total requests); p50 the slices' median, p99 their highest.
 */
function joinSlices(slices) {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  const elapsedMs = slices.reduce((sum, slice) => sum + slice.elapsedMs, 0);
  const weighted = (field, by) => slices.reduce((sum, slice) => sum + slice[field] * slice[by], 0);
  return {
    requests,
    elapsedMs,
    requestsPerSecond: (requests / elapsedMs) * 1000,
    p50Ms: median(slices.map((slice) => slice.p50Ms)),
    p99Ms: Math.max(...slices.map((slice) => slice.p99Ms)),
    clientCpuShare: weighted('clientCpuShare', 'elapsedMs') / elapsedMs,
    serverCpuShare: weighted('serverCpuShare', 'elapsedMs') / elapsedMs,
    serverCpuUsPerRequest: weighted('serverCpuUsPerRequest', 'requests') / requests,
    slices: slices.length,
  };
}

/** The OwnedAccessKeys stored on `server` (listed as its admin). */
async function listedKeys(server) {
  const answer = await expectStatus(server, request(server, 'GET', KEYS_PATH, server.adminKey), 200, 'list the keys');
  return JSON.parse(answer.body.toString('utf8')).items;
}

if (options['sweep-only']) {
  for (const point of sweep) {
    const hit = median(point.hit.map((run) => run.serverCpuUsPerRequest));
    const miss = median(point.miss.map((run) => run.serverCpuUsPerRequest));
    console.log(`sweep ${point.storedKeys} keys: hit ${round(hit, 0)} µs [${point.hit.map((run) => round(run.serverCpuUsPerRequest, 0)).join(', ')}], miss ${round(miss, 0)} µs [${point.miss.map((run) => round(run.serverCpuUsPerRequest, 0)).join(', ')}], ratio ${round(miss / hit, 2)}`);
  }
  process.exit(0);
}

function summary(list) {
  const pick = (field, digits) => round(median(list.map((run) => run[field])), digits);
  return {
    requestsPerSecond: pick('requestsPerSecond', 0),
    p50Ms: pick('p50Ms', 2),
    p99Ms: pick('p99Ms', 2),
    clientCpuShare: pick('clientCpuShare', 2),
    serverCpuShare: pick('serverCpuShare', 2),
    serverCpuUsPerRequest: pick('serverCpuUsPerRequest', 0),
    runs: list.map((run) => ({ ...run, requestsPerSecond: round(run.requestsPerSecond, 0), p50Ms: round(run.p50Ms, 2), p99Ms: round(run.p99Ms, 2), elapsedMs: round(run.elapsedMs, 0), clientCpuShare: round(run.clientCpuShare, 2), serverCpuShare: round(run.serverCpuShare, 2), serverCpuUsPerRequest: round(run.serverCpuUsPerRequest, 0) })),
  };
}

const results = {};
for (const kind of ['baseline', 'hit', 'miss']) {
  results[kind] = {};
  for (const clients of [1, CLIENTS]) results[kind][clients] = summary(runs[kind][clients]);
}
const createKeys = round(median(runs.createKeys), 0);
const createConfigMaps = round(median(runs.createConfigMaps), 0);
const ratio = (value, baseline) => round(value / baseline, 2);
const goalMet = (r) => r.requestsPerSecond >= 5000 && r.p99Ms <= 20;
const table = [];
for (const clients of [1, CLIENTS]) {
  const base = results.baseline[clients];
  const label = `${clients} client${clients === 1 ? '' : 's'}`;
  for (const [kind, what] of [['hit', 'cache hit'], ['miss', 'cache miss']]) {
    const measured = results[kind][clients];
    const metric = `authenticated GET, ${what}, ${label}`;
    table.push({ benchmark: 'management-auth', metric: `${metric}: req/s`, value: measured.requestsPerSecond, baseline: base.requestsPerSecond, ratio: ratio(measured.requestsPerSecond, base.requestsPerSecond) });
    table.push({ benchmark: 'management-auth', metric: `${metric}: p50 / p99 ms (ratio of p99)`, value: `${measured.p50Ms} / ${measured.p99Ms}`, baseline: `${base.p50Ms} / ${base.p99Ms}`, ratio: ratio(measured.p99Ms, base.p99Ms) });
    if (clients !== 1) {
      table.push({ benchmark: 'management-auth', metric: `${metric}: server CPU µs per request`, value: measured.serverCpuUsPerRequest, baseline: base.serverCpuUsPerRequest, ratio: ratio(measured.serverCpuUsPerRequest, base.serverCpuUsPerRequest) });
    }
  }
}
const hit64 = results.hit[CLIENTS];
table.push({
  benchmark: 'management-auth',
  metric: `goal at ${CLIENTS} clients, cache hit: ≥ 5000 req/s and p99 ≤ 20 ms (the baseline ${goalMet(results.baseline[CLIENTS]) ? 'meets' : 'does not meet'} it in this run)`,
  value: `${goalMet(hit64) ? 'met' : 'not met'}: ${hit64.requestsPerSecond} req/s, p99 ${hit64.p99Ms} ms`,
});
const sweepResults = sweep.map((point) => {
  const hit = summary(point.hit);
  const miss = summary(point.miss);
  // The ratio of each round's own pair (taking turns), then their median.
  const ratios = point.miss.map((run, index) => run.serverCpuUsPerRequest / point.hit[index].serverCpuUsPerRequest);
  return { storedKeys: point.storedKeys, loadAverage: point.loadAverage, hit, miss, missToHitRatio: round(median(ratios), 2), roundRatios: ratios.map((value) => round(value, 2)) };
});
for (const point of sweepResults) {
  table.push({
    benchmark: 'management-auth',
    metric: `authenticated GET, cache miss, ${point.storedKeys} keys stored, ${CLIENTS} clients: server CPU µs per request (baseline: a cache hit on the same server)`,
    value: point.miss.serverCpuUsPerRequest,
    baseline: point.hit.serverCpuUsPerRequest,
    ratio: point.missToHitRatio,
  });
}
const sweepMet = sweepResults.length > 0 && sweepResults.every((point) => point.missToHitRatio <= MISS_GOAL_RATIO);
table.push({
  benchmark: 'management-auth',
  metric: `goal: a cache miss ≤ ${MISS_GOAL_RATIO}x a cache hit (server CPU per request) at ${sweepResults.map((point) => point.storedKeys).join(' and ')} keys stored`,
  value: `${sweepMet ? 'met' : 'not met'}: ${sweepResults.map((point) => `${point.missToHitRatio}x`).join(', ')}`,
});
table.push({ benchmark: 'management-auth', metric: `OwnedAccessKeys created/s (admin key, concurrency ${CREATE_CONCURRENCY}; baseline: ConfigMaps on the devcluster)`, value: createKeys, baseline: createConfigMaps, ratio: ratio(createKeys, createConfigMaps) });

printSummary(`management-auth, medians of ${options.rounds} rounds of ${options.seconds} s (req/s, p50 / p99 ms, CPU client / server in cores, server CPU per request)`, [
  ...['baseline', 'hit', 'miss'].flatMap((kind) =>
    [1, CLIENTS].map((clients) => {
      const r = results[kind][clients];
      return [`${kind}, ${clients} clients`, `${r.requestsPerSecond} req/s, ${r.p50Ms} / ${r.p99Ms} ms, CPU ${r.clientCpuShare} / ${r.serverCpuShare}, server ${r.serverCpuUsPerRequest} µs/request`];
    }),
  ),
  ['creates/s keys / ConfigMaps', `${createKeys} / ${createConfigMaps}`],
  ...sweepResults.map((point) => [`miss / hit, ${point.storedKeys} keys stored`, `${point.miss.serverCpuUsPerRequest} / ${point.hit.serverCpuUsPerRequest} µs per request: ${point.missToHitRatio}x (load ${point.loadAverage.join(' / ')})`]),
  [`goal at ${CLIENTS} clients`, `>= 5000 req/s and p99 <= 20 ms: ${goalMet(hit64) ? 'met' : 'not met'} (baseline: ${goalMet(results.baseline[CLIENTS]) ? 'met' : 'not met'})`],
]);
const file = await writeResult('management-auth', {
  quick: options.quick,
  rounds: options.rounds,
  secondsPerMeasurement: options.seconds,
  clients: CLIENTS,
  storage: 'devcluster storage engine in memory (openDevStorage, as vcsync dev without its data dir)',
  missCache: `a second management server whose key cache holds 1 key; clients rotate over ${options['miss-keys']} keys, so every request misses the cache`,
  keyCountSweep: {
    what: `the miss server filled with keys up to each count; server CPU per request of a miss against a hit (every client the same key) on that server and the same connections, ${CLIENTS} clients, ${options.rounds} rounds; a round takes turns in ${SWEEP_SLICES} slices of each (${options.seconds} s of each in all, ${SWEEP_WARMUP_MS} ms warm-up per slice); ratio: the median of the rounds' ratios`,
    goalRatio: MISS_GOAL_RATIO,
    met: sweepMet,
    points: sweepResults,
  },
  loadAverageBefore: loadBefore.map((value) => round(value)),
  sizes,
  results,
  creates: { count: options.creates, concurrency: CREATE_CONCURRENCY, keysPerSecond: createKeys, configMapsPerSecond: createConfigMaps, runs: runs.createKeys.map((v) => round(v, 0)), baselineRuns: runs.createConfigMaps.map((v) => round(v, 0)) },
  goal: { clients: CLIENTS, requestsPerSecond: 5000, p99Ms: 20, met: goalMet(hit64), metByBaseline: goalMet(results.baseline[CLIENTS]) },
  table,
});
console.log(`\nwrote ${file}`);
