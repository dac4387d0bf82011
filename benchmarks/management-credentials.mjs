// Management API credentials: kube configs, DirectClusterEndpointTokens and token
// reviews per second, against baselines measured in the same run. Every server runs in its own
// Node process over HTTPS (benchmarks/lib/auth-server-process.mjs, built code from dist/: build
// first); this process is the load generator: `--clients` keep-alive TLS connections sending
// pre-serialised requests back to back, one in flight per connection, for `--seconds` after a
// warm-up. Each figure is a median of `--rounds`, with the server's CPU time per operation next to
// the rate (the machine is shared: the CPU time varies less than the rate). Measured:
//
//   kubeconfig cert   POST virtualclusterinstances/vc1/kubeconfig with clientCert: true: a fresh
//                     ECDSA P-256 key, a CSR created and approved on the virtual cluster (a TLS
//                     devcluster whose signer signs it), its certificate seen on the management
//                     server's one watch of its CSRs, the CSR deleted; the devcluster's CPU per kube
//                     config is reported too, and the rate 2 free cores give at the CPU measured;
//   kubeconfig token  the same with clientCert: false: a DirectClusterEndpointToken-style JWT
//                     (ES256, the kube-config tokens' own key ring) inside;
//   tokens issued     POST directclusterendpointtokens (RS256, the default);
//   reviews           POST tokenreviews (no credential, as a kube-apiserver asks): an access key
//                     and a direct token, each as a cache hit (the same one repeatedly, on the
//                     first management server) and a cache miss (a second management server whose
//                     key cache holds 1 key, the clients rotating over `--miss-keys` keys / direct
//                     tokens of as many keys);
//   baselines         ConfigMap creates (generateName) on the devcluster at the same concurrency,
//                     for the creates; the management server's cached authenticated GET of an
//                     OwnedAccessKey, for the reviews.
//
// `--profile DIR` runs the first management server and the devcluster with `node --cpu-prof
// --cpu-prof-dir DIR` (the devcluster's profile is the one written first).
// Results: benchmarks/results/management-credentials.json.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { benchArgs, median, printSummary, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { openConnections, runLoad } from './lib/raw-https-client.mjs';
import { expectStatus, request, startServer } from './lib/server-process-client.mjs';

const options = benchArgs({
  usage:
    'usage: node benchmarks/management-credentials.mjs [--quick] [--rounds 3] [--clients 16] [--seconds 4] [--miss-keys 64] [--profile DIR] [--only KIND,…] [--virtual-qps N]\n' +
    '--virtual-qps N: the management server\'s client of the virtual cluster is limited to N requests/s, burst 80, as the daemon\'s (which shares the syncer\'s, default 40); default 0: unlimited\n' +
    'KIND: kubeConfigCert, kubeConfigToken, tokensIssued, configMapCreates, reviewKeyHit, reviewKeyMiss, reviewTokenHit, reviewTokenMiss, cachedGet (default: all; --only is for profiling, the README rows need all)\n' +
    '(build first: npm run build)',
  numbers: { rounds: 3, clients: 16, seconds: (quick) => (quick ? 1 : 4), 'miss-keys': (quick) => (quick ? 16 : 64), 'virtual-qps': 0 },
  strings: { profile: '', only: '' },
});
const CLIENTS = options.clients;
const DURATION_MS = options.seconds * 1000;
const WARMUP_MS = Math.min(1000, DURATION_MS / 2);
const TOKEN = 'bench-devcluster-token';
const GROUP_VERSION = 'management.loft.sh/v1';
const KEYS_PATH = `/apis/${GROUP_VERSION}/ownedaccesskeys`;
const TOKENS_PATH = `/apis/${GROUP_VERSION}/directclusterendpointtokens`;
const REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
const VIRTUAL = { name: 'vc1', namespace: 'vcluster-vc1', ingressHost: 'vc1.example.test' };
const KUBECONFIG_PATH = `/apis/${GROUP_VERSION}/namespaces/${VIRTUAL.namespace}/virtualclusterinstances/${VIRTUAL.name}/kubeconfig`;
const CONFIGMAPS_PATH = '/api/v1/namespaces/default/configmaps';
const GOAL_KUBECONFIGS_PER_SECOND = 200;

/** Creates an OwnedAccessKey of alice (unrestricted scope) as the admin; returns its generated key. */
async function createKey(server, name) {
  const body = { apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'alice', displayName: `benchmark key ${name}` } };
  const answer = await expectStatus(server, request(server, 'POST', KEYS_PATH, server.adminKey, body), 201, `create ${name}`);
  return JSON.parse(answer.body.toString('utf8')).spec.key;
}

/** A DirectClusterEndpointToken issued with `key`. */
async function issueToken(server, key) {
  const body = { apiVersion: GROUP_VERSION, kind: 'DirectClusterEndpointToken', metadata: {}, spec: {} };
  const answer = await expectStatus(server, request(server, 'POST', TOKENS_PATH, key, body), 201, 'issue a direct token');
  return JSON.parse(answer.body.toString('utf8')).status.token;
}

const reviewOf = (server, token) => request(server, 'POST', REVIEW_PATH, undefined, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });

/** Reviews `token` once and throws unless it authenticates (a refusal is a 200 too). */
async function expectAuthenticated(server, token, what) {
  const answer = JSON.parse((await expectStatus(server, reviewOf(server, token), 200, what)).body.toString('utf8'));
  if (answer.status?.authenticated !== true) throw new Error(`${what}: not authenticated: ${JSON.stringify(answer.status)}`);
}

async function measure(server, requestFor, expect, otherPids) {
  const connections = await openConnections(server.url, server.caCertPem, CLIENTS);
  try {
    return await runLoad({ connections, requestFor, expect, warmupMs: WARMUP_MS, durationMs: DURATION_MS, serverPid: server.pid, otherPids });
  } finally {
    for (const connection of connections) connection.close();
  }
}

const dir = await tempDir('management-credentials');
const loadBefore = os.loadavg();
const servers = [];
const KINDS = ['kubeConfigCert', 'kubeConfigToken', 'tokensIssued', 'configMapCreates', 'reviewKeyHit', 'reviewKeyMiss', 'reviewTokenHit', 'reviewTokenMiss', 'cachedGet'];
const runs = Object.fromEntries(KINDS.map((kind) => [kind, []]));
const only = options.only === '' ? KINDS : options.only.split(',');
const unknown = only.filter((kind) => !KINDS.includes(kind));
if (unknown.length > 0) {
  console.error(`--only: unknown ${unknown.join(', ')}; the kinds are ${KINDS.join(', ')}`);
  process.exit(2);
}
try {
  const profileFlags = options.profile !== '' ? ['--cpu-prof', '--cpu-prof-dir', options.profile] : [];
  const devcluster = await startServer(['devcluster', join(dir.path, 'devcluster'), TOKEN], profileFlags);
  servers.push(devcluster);
  const virtualFile = join(dir.path, 'virtual.json');
  await writeFile(virtualFile, JSON.stringify({ ...VIRTUAL, kubeConfig: devcluster.kubeConfig, ...(options['virtual-qps'] > 0 ? { qps: options['virtual-qps'] } : {}) }));
  const management = await startServer(['management', join(dir.path, 'management'), 'default', virtualFile], profileFlags);
  servers.push(management);
  const missServer = await startServer(['management', join(dir.path, 'management-miss'), '1']);
  servers.push(missServer);

  const kubeConfigBody = (clientCert) => ({ apiVersion: GROUP_VERSION, kind: 'VirtualClusterInstanceKubeConfig', spec: { clientCert } });
  const certRequest = request(management, 'POST', KUBECONFIG_PATH, management.adminKey, kubeConfigBody(true));
  const tokenConfigRequest = request(management, 'POST', KUBECONFIG_PATH, management.adminKey, kubeConfigBody(false));
  for (const [req, what] of [[certRequest, 'kube config with a client certificate'], [tokenConfigRequest, 'kube config with a token']]) {
    const config = JSON.parse((await expectStatus(management, req, 201, what)).body.toString('utf8')).status.kubeConfig;
    if (!config.includes(req === certRequest ? 'client-certificate-data' : 'token:')) throw new Error(`${what}: unexpected kube config:\n${config}`);
  }
  const issueRequest = request(management, 'POST', TOKENS_PATH, management.adminKey, { apiVersion: GROUP_VERSION, kind: 'DirectClusterEndpointToken', metadata: {}, spec: {} });
  const configMapRequest = request(devcluster, 'POST', CONFIGMAPS_PATH, TOKEN, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'bench-' }, data: { pad: 'x'.repeat(200) } });

  // Cache hit: one key and one token of it, reviewed repeatedly; the cached GET of the same key as baseline.
  const hitKey = await createKey(management, 'bench-reader');
  const hitToken = await issueToken(management, hitKey);
  await expectAuthenticated(management, hitKey, 'review of the hit key');
  await expectAuthenticated(management, hitToken, 'review of the hit token');
  const reviewKeyHit = reviewOf(management, hitKey);
  const reviewTokenHit = reviewOf(management, hitToken);
  const cachedGet = request(management, 'GET', `${KEYS_PATH}/bench-reader`, hitKey);

  // Cache miss: many keys (and a token of each) on a server caching 1 key; each used once first (lastActivity).
  const missKeys = [];
  for (let index = 0; index < Math.max(2, options['miss-keys']); index += 1) missKeys.push(await createKey(missServer, `miss-${index}`));
  const missTokens = [];
  for (const key of missKeys) missTokens.push(await issueToken(missServer, key));
  for (const token of [...missKeys, ...missTokens]) await expectAuthenticated(missServer, token, 'first review of a miss key or token');
  const missKeyReviews = missKeys.map((key) => reviewOf(missServer, key));
  const missTokenReviews = missTokens.map((token) => reviewOf(missServer, token));
  // Connection i alternates between keys i and i + half: no two consecutive lookups share a key.
  const rotating = (list) => {
    const half = Math.floor(list.length / 2);
    return (index, n) => list[((index % half) + (n % 2) * half) % list.length];
  };

  const measurements = {
    configMapCreates: () => measure(devcluster, () => configMapRequest, 201),
    kubeConfigCert: () => measure(management, () => certRequest, 201, { virtualCluster: devcluster.pid }),
    kubeConfigToken: () => measure(management, () => tokenConfigRequest, 201),
    tokensIssued: () => measure(management, () => issueRequest, 201),
    cachedGet: () => measure(management, () => cachedGet, 200),
    reviewKeyHit: () => measure(management, () => reviewKeyHit, 200),
    reviewTokenHit: () => measure(management, () => reviewTokenHit, 200),
    reviewKeyMiss: () => measure(missServer, rotating(missKeyReviews), 200),
    reviewTokenMiss: () => measure(missServer, rotating(missTokenReviews), 200),
  };
  for (let round_ = 0; round_ < options.rounds; round_ += 1) {
    for (const [kind, run] of Object.entries(measurements)) if (only.includes(kind)) runs[kind].push(await run());
  }
} finally {
  for (const server of servers) await server.stop();
  await dir.dispose();
}

function summary(list) {
  const pick = (read, digits) => round(median(list.map(read)), digits);
  return {
    requestsPerSecond: pick((run) => run.requestsPerSecond, 0),
    p50Ms: pick((run) => run.p50Ms, 2),
    p99Ms: pick((run) => run.p99Ms, 2),
    clientCpuShare: pick((run) => run.clientCpuShare, 2),
    clientCpuUsPerRequest: pick((run) => (run.requestsPerSecond > 0 ? (run.clientCpuShare * 1e6) / run.requestsPerSecond : 0), 0),
    serverCpuShare: pick((run) => run.serverCpuShare, 2),
    serverCpuUsPerRequest: pick((run) => run.serverCpuUsPerRequest, 0),
    ...(list[0]?.otherCpuUsPerRequest?.virtualCluster !== undefined ? { virtualClusterCpuUsPerRequest: pick((run) => run.otherCpuUsPerRequest.virtualCluster, 0) } : {}),
    runs: list.map((run) => ({
      requests: run.requests,
      elapsedMs: round(run.elapsedMs, 0),
      requestsPerSecond: round(run.requestsPerSecond, 0),
      p50Ms: round(run.p50Ms, 2),
      p99Ms: round(run.p99Ms, 2),
      clientCpuShare: round(run.clientCpuShare, 2),
      serverCpuShare: round(run.serverCpuShare, 2),
      serverCpuUsPerRequest: round(run.serverCpuUsPerRequest, 0),
      ...(run.otherCpuUsPerRequest !== undefined ? { otherCpuUsPerRequest: Object.fromEntries(Object.entries(run.otherCpuUsPerRequest).map(([name, value]) => [name, round(value, 0)])) } : {}),
    })),
  };
}

const results = Object.fromEntries(KINDS.map((kind) => [kind, summary(runs[kind])]));

/**
 * The CPU per operation of every process it took (server + virtual cluster + load generator, µs)
 * and the rate 2 free cores give at it: on a shared machine the measured rate is what the other
 * processes leave; this is what the same CPU per operation allows once the 2 cores are ours.
 */
function twoCoreFigures(r) {
  const clientCpuUs = r.clientCpuUsPerRequest;
  const cpuUs = r.serverCpuUsPerRequest + (r.virtualClusterCpuUsPerRequest ?? 0) + clientCpuUs;
  return {
    clientCpuUs: round(clientCpuUs, 0),
    cpuUs: round(cpuUs, 0),
    twoCoreRate: cpuUs > 0 ? round(2e6 / cpuUs, 0) : 0,
    virtualCpuShare: round(((r.virtualClusterCpuUsPerRequest ?? 0) * r.requestsPerSecond) / 1e6, 2),
  };
}

if (only.length < KINDS.length) {
  printSummary(
    `management-credentials --only ${options.only} (not written to results)`,
    only.map((kind) => [kind, JSON.stringify({ ...results[kind], runs: undefined, ...(kind === 'kubeConfigCert' ? twoCoreFigures(results[kind]) : {}) })]),
  );
  process.exit(0);
}
const ratio = (value, baseline) => round(value / baseline, 2);
const table = [];
const rows = [
  ['kubeConfigCert', 'configMapCreates', 'kube configs/s, clientCert: true (CSR round trip on a TLS devcluster)'],
  ['kubeConfigToken', 'configMapCreates', 'kube configs/s, clientCert: false (an ES256 token)'],
  ['tokensIssued', 'configMapCreates', 'DirectClusterEndpointTokens issued/s (RS256)'],
  ['reviewKeyHit', 'cachedGet', 'token reviews/s, access key, cache hit'],
  ['reviewKeyMiss', 'cachedGet', `token reviews/s, access key, cache miss (${options['miss-keys']} keys, cache of 1)`],
  ['reviewTokenHit', 'cachedGet', 'token reviews/s, direct token, cache hit'],
  ['reviewTokenMiss', 'cachedGet', `token reviews/s, direct token, cache miss (${options['miss-keys']} tokens of as many keys)`],
];
const baselineName = { configMapCreates: 'ConfigMap creates/s on the devcluster', cachedGet: 'cached authenticated GET on the management server' };
for (const [kind, base, what] of rows) {
  const measured = results[kind];
  const baseline = results[base];
  table.push({ benchmark: 'management-credentials', metric: `${what}, ${CLIENTS} clients (baseline: ${baselineName[base]})`, value: measured.requestsPerSecond, baseline: baseline.requestsPerSecond, ratio: ratio(measured.requestsPerSecond, baseline.requestsPerSecond) });
  const virtualCpu = measured.virtualClusterCpuUsPerRequest !== undefined ? ` + ${measured.virtualClusterCpuUsPerRequest} on the virtual cluster` : '';
  table.push({ benchmark: 'management-credentials', metric: `${what}: server CPU µs per operation`, value: `${measured.serverCpuUsPerRequest}${virtualCpu}`, baseline: baseline.serverCpuUsPerRequest, ratio: ratio(measured.serverCpuUsPerRequest, baseline.serverCpuUsPerRequest) });
}
const cert = results.kubeConfigCert;
const goalMet = cert.requestsPerSecond >= GOAL_KUBECONFIGS_PER_SECOND;
// The CPU shares say how much of a core each server got: the measured rate is the machine's when they are far from 1.
const { clientCpuUs: certClientCpuUs, cpuUs: certCpuUs, twoCoreRate, virtualCpuShare } = twoCoreFigures(cert);
table.push({
  benchmark: 'management-credentials',
  metric: `kube configs/s with client certificates that 2 free cores give at this run's CPU per config (management ${cert.serverCpuUsPerRequest} + virtual cluster ${cert.virtualClusterCpuUsPerRequest ?? 0} + load generator ${certClientCpuUs} µs; CPU shares ${cert.serverCpuShare} + ${virtualCpuShare} of a core measured)`,
  value: twoCoreRate,
  baseline: GOAL_KUBECONFIGS_PER_SECOND,
  ratio: ratio(twoCoreRate, GOAL_KUBECONFIGS_PER_SECOND),
});
table.push({
  benchmark: 'management-credentials',
  metric: `goal: ≥ ${GOAL_KUBECONFIGS_PER_SECOND} kube configs/s with client certificates on 2 cores, CSR round trip included`,
  value: `${goalMet ? 'met' : 'not met'}: ${cert.requestsPerSecond}/s`,
});

printSummary(`management-credentials, medians of ${options.rounds} rounds of ${options.seconds} s at ${CLIENTS} clients (ops/s, p50 / p99 ms, CPU client / server in cores, server CPU per op)`, [
  ...KINDS.map((kind) => {
    const r = results[kind];
    const virtualCpu = r.virtualClusterCpuUsPerRequest !== undefined ? ` + virtual cluster ${r.virtualClusterCpuUsPerRequest} µs/op` : '';
    return [kind, `${r.requestsPerSecond}/s, ${r.p50Ms} / ${r.p99Ms} ms, CPU ${r.clientCpuShare} / ${r.serverCpuShare}, server ${r.serverCpuUsPerRequest} µs/op${virtualCpu}`];
  }),
  ['goal', `>= ${GOAL_KUBECONFIGS_PER_SECOND} kube configs/s with client certificates: ${goalMet ? 'met' : 'not met'} (${cert.requestsPerSecond}/s; 2 free cores at this CPU per config: ${twoCoreRate}/s, CPU shares management ${cert.serverCpuShare} + virtual cluster ${virtualCpuShare})`],
  ['load average before', loadBefore.map((value) => round(value)).join(' / ')],
]);
const file = await writeResult('management-credentials', {
  quick: options.quick,
  rounds: options.rounds,
  secondsPerMeasurement: options.seconds,
  clients: CLIENTS,
  virtualClientQps: options['virtual-qps'] > 0 ? options['virtual-qps'] : 'unlimited',
  missKeys: options['miss-keys'],
  caller: 'the bootstrap admin key for the creates; unrestricted keys of alice and direct tokens issued with them for the reviews',
  virtualCluster: 'a TLS devcluster process (its CSR signer signs kubernetes.io/kube-apiserver-client requests); the ConfigMap baseline runs on it too',
  loadAverageBefore: loadBefore.map((value) => round(value)),
  results,
  goal: { kubeConfigsPerSecondWithClientCert: GOAL_KUBECONFIGS_PER_SECOND, measured: cert.requestsPerSecond, met: goalMet, twoFreeCoresAtMeasuredCpu: twoCoreRate, cpuUsPerConfig: certCpuUs },
  table,
});
console.log(`\nwrote ${file}`);
