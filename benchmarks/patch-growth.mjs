// Patch growth: the security review's small patches that copy an object into itself (11 KB:
// a 1,000-item list, then 16 copies of the container; 2 KB: a 1 KB string doubled 19 times), sent
// with dryRun=All to a devcluster process (a ConfigMap's annotations) and to a management server
// process (a non-admin user's own OwnedAccessKey, /spec). For each: the answer (code, reason) and
// how long it took, a GET by another client sent at the same moment and its latency against the
// same GET alone (the baseline, measured in the same run), and the server's RSS and peak RSS
// (VmHWM) after the runs. Before the limits the process died of a heap OOM after about 100 s.
// Imports the built code from dist/ and build/testbed/ (build first: `npm run build && npm run build:testbed`).
// Results: benchmarks/results/patch-growth.json (no README table rows).
import { request as httpsRequest } from 'node:https';
import { benchArgs, median, printSummary, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { processMemory, startDevClusterProcess } from './lib/cluster-processes.mjs';
import { startServer } from './lib/server-process-client.mjs';

const { runs: RUNS } = benchArgs({
  usage: 'usage: node benchmarks/patch-growth.mjs [--runs 5]\n(build first: npm run build && npm run build:testbed)',
  numbers: { runs: (quick) => (quick ? 2 : 5) },
});
const { copyDoublingPatch, stringDoublingPatch } = await import('../build/testbed/fuzz/growing-patches.js');

const JSON_PATCH = 'application/json-patch+json';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const KEYS = '/kubernetes/management/apis/management.loft.sh/v1/ownedaccesskeys';
const MiB = 1024 * 1024;

/** One exchange over HTTP(S) (`ca` for the management server's certificate): status, parsed body, milliseconds. */
function send(url, { method = 'GET', body, contentType, token, ca } = {}) {
  const started = performance.now();
  const headers = { accept: 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  if (ca === undefined) {
    return fetch(url, { method, headers, body }).then(async (response) => ({ status: response.status, body: await response.json(), ms: performance.now() - started }));
  }
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { method, headers, ca }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), ms: performance.now() - started }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Measures the two patches against one server: `target` is `{ name, pid, patchUrl, readUrl, patchAs, readAs, ca, container }`. */
async function measure(target) {
  const rows = [];
  const alone = [];
  for (let run = 0; run < RUNS * 2; run += 1) alone.push((await send(target.readUrl, { token: target.readAs, ca: target.ca })).ms);
  const baselineMs = median(alone);
  for (const [name, patch] of [
    ['11 KB: 1,000-item list + 16 copies', copyDoublingPatch(target.container)],
    ['2 KB: 1 KB string doubled 19 times', stringDoublingPatch(target.container)],
  ]) {
    const body = JSON.stringify(patch);
    const patchMs = [];
    const readMs = [];
    let answer;
    for (let run = 0; run < RUNS; run += 1) {
      const [patched, read] = await Promise.all([
        send(target.patchUrl, { method: 'PATCH', body, contentType: JSON_PATCH, token: target.patchAs, ca: target.ca }),
        send(target.readUrl, { token: target.readAs, ca: target.ca }),
      ]);
      if (read.status !== 200) throw new Error(`${target.name} ${name}: the concurrent GET answered ${read.status}`);
      answer = patched;
      patchMs.push(patched.ms);
      readMs.push(read.ms);
    }
    const memory = await processMemory(target.pid);
    rows.push({
      server: target.name,
      patch: name,
      bytes: Buffer.byteLength(body),
      status: answer.status,
      reason: answer.body.reason,
      message: answer.body.message,
      medianMs: round(median(patchMs), 1),
      maxMs: round(Math.max(...patchMs), 1),
      concurrentGetMedianMs: round(median(readMs), 1),
      getAloneMedianMs: round(baselineMs, 1),
      concurrentGetRatio: round(median(readMs) / baselineMs, 2),
      rssMiB: round(memory.rssBytes / MiB, 1),
      peakRssMiB: round(memory.peakRssBytes / MiB, 1),
    });
  }
  return rows;
}

const dir = await tempDir('patch-growth');
const devcluster = await startDevClusterProcess('patch-growth', dir.path);
const management = await startServer(['management', dir.path]);
const results = [];
try {
  const created = await send(`${devcluster.url}${CONFIGMAPS}`, { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'victim', annotations: { owner: 'carol' } } }) });
  if (created.status !== 201) throw new Error(`creating the ConfigMap answered ${created.status}`);
  const before = { devcluster: await processMemory(devcluster.pid), management: await processMemory(management.pid) };
  results.push(...(await measure({ name: 'devcluster', pid: devcluster.pid, container: '/metadata/annotations', patchUrl: `${devcluster.url}${CONFIGMAPS}/victim?dryRun=All`, readUrl: `${devcluster.url}${CONFIGMAPS}/victim` })));
  const origin = new URL(management.url).origin;
  const key = await send(`${origin}${KEYS}`, {
    method: 'POST',
    token: management.adminKey,
    ca: management.caCertPem,
    body: JSON.stringify({ apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'carol' }, spec: { user: 'carol' } }),
  });
  if (key.status !== 201) throw new Error(`creating carol's key answered ${key.status}: ${JSON.stringify(key.body)}`);
  results.push(
    ...(await measure({
      name: 'management',
      pid: management.pid,
      container: '/spec',
      patchUrl: `${origin}${KEYS}/carol?dryRun=All`,
      patchAs: key.body.spec.key,
      readUrl: `${origin}${KEYS}`,
      readAs: management.adminKey,
      ca: management.caCertPem,
    })),
  );
  printSummary(
    `PATCH with dryRun=All, ${RUNS} runs each: answer, median / max ms, concurrent GET median ms (alone), RSS / peak RSS MiB after (before: devcluster ${round(before.devcluster.rssBytes / MiB, 1)}, management ${round(before.management.rssBytes / MiB, 1)})`,
    results.map((row) => [`${row.server} ${row.patch}`, `${row.status} ${row.reason}, ${row.medianMs} / ${row.maxMs} ms, GET ${row.concurrentGetMedianMs} ms (${row.getAloneMedianMs}), ${row.rssMiB} / ${row.peakRssMiB} MiB`]),
  );
  const file = await writeResult('patch-growth', {
    runs: RUNS,
    memoryBefore: { devcluster: before.devcluster, management: before.management },
    cases: results,
  });
  console.log(`\nwrote ${file}`);
} finally {
  await devcluster.stop();
  await management.stop();
  await dir.dispose();
}
