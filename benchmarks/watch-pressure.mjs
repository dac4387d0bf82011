// Management API under watch pressure: the server's resident memory and the latency
// of a plain GET while 0, 100 and 500 watches of OwnedAccessKeys each receive the initial state of
// 10,000 keys (resourceVersion unset: one ADDED event per key). Each watch count gets a fresh
// server process (benchmarks/lib/watch-server-process.mjs, built code from dist/: build first),
// seeded with the keys, so that one phase's heap does not carry into the next. Measured in the
// same run:
//
//   baseline  0 watches: RSS after seeding, and the p99 of GETs of one key (one keep-alive TLS
//             connection, one request in flight, on a worker thread of this process so that
//             reading the watches does not delay noticing the answers);
//   N watches the admin opens N watches (one TLS connection each, read as fast as this process
//             reads), and GETs of one key run from the first until every watch has received every key: RSS at
//             its peak (sampled every 50 ms) and once every watch has its keys, RSS after the
//             watches have closed, and the p99 of the GETs meanwhile. The server also reports its
//             event-loop delay over the phase (p99, max) and process.memoryUsage() by kind (heap,
//             external, array buffers) once every watch has its keys and after they closed.
//
// Goal: ≤ +200 MB RSS at 500 watches and GET p99 ≤ 50 ms. `--dist DIR` runs the
// server from another build (e.g. the main branch's dist/) to compare. Results:
// benchmarks/results/watch-pressure.json. `--cpu-prof DIR` writes each server process's CPU profile
// (a .cpuprofile per phase) to DIR, to see what holds the event loop.
import { existsSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { benchArgs, benchmarksDir, percentile, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { Worker } from 'node:worker_threads';
import { pathOf, request } from './lib/server-process-client.mjs';

const options = benchArgs({
  usage: 'usage: node benchmarks/watch-pressure.mjs [--quick] [--keys 10000] [--watches 0,100,500] [--min-gets 200] [--dist DIR] [--cpu-prof DIR]\n(build first: npm run build)',
  numbers: { keys: (quick) => (quick ? 1000 : 10_000), 'min-gets': 200 },
  strings: { watches: (quick) => (quick ? '0,20,100' : '0,100,500'), dist: '', 'cpu-prof': '' },
});
const KEYS = options.keys;
const WATCH_COUNTS = options.watches.split(',').map(Number);
const KEYS_PATH = '/apis/management.loft.sh/v1/ownedaccesskeys';
const MiB = 1024 * 1024;

function rssBytes(pid) {
  if (!existsSync(`/proc/${pid}/status`)) return Number.NaN;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) * 1024;
}

async function startWatchServer(dir) {
  const args = [join(benchmarksDir, 'lib', 'watch-server-process.mjs'), dir, String(KEYS), ...(options.dist !== '' ? [options.dist] : [])];
  const profile = options['cpu-prof'] !== '' ? ['--cpu-prof', `--cpu-prof-dir=${options['cpu-prof']}`] : [];
  const child = spawn(process.execPath, ['--no-node-snapshot', ...profile, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (text) => (stderr = (stderr + text).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stopping = false;
  void exited.then((code) => {
    if (stopping) return;
    console.error(`the watch server exited (${code}) during the run:\n${stderr}`);
    process.exit(1);
  });
  const lines = createInterface({ input: child.stdout });
  const nextLine = () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
  const ready = await new Promise((resolve, reject) => {
    void nextLine().then(resolve);
    void exited.then((code) => reject(new Error(`watch server exited (${code}) before ready:\n${stderr}`)));
  });
  /** The server's memory by kind and its event-loop delay since the previous call. */
  const stats = () => {
    const answer = nextLine();
    child.stdin.write('stats\n');
    return answer;
  };
  const stop = async () => {
    stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { ...ready, pid: child.pid, stats, stop };
}

/** Opens a watch of every key; `delivered` resolves once `KEYS` events (lines) arrived. */
function openWatch(server) {
  const url = new URL(server.url);
  let lines = 0;
  let markDelivered;
  const delivered = new Promise((resolve) => (markDelivered = resolve));
  const opened = new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: url.hostname, port: url.port, path: pathOf(server, `${KEYS_PATH}?watch=true`), ca: server.caCertPem, agent: false, headers: { authorization: `Bearer ${server.adminKey}`, accept: 'application/json' } },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`watch answered ${response.statusCode}`));
        response.on('data', (chunk) => {
          for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
          if (lines >= KEYS) markDelivered();
        });
        response.on('error', () => undefined);
        resolve({ delivered, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
  return opened;
}

async function phase(watchCount) {
  const dir = await tempDir('watch-pressure');
  const server = await startWatchServer(dir.path);
  try {
    // The GETs run on their own thread, from the first watch on (an idle connection would meet
    // the server's idle timeout), until every watch has received every key.
    const getter = new Worker(new URL('./lib/get-latency-worker.mjs', import.meta.url), {
      workerData: { url: server.url, caCertPem: server.caCertPem, request: request(server, 'GET', `${KEYS_PATH}/${server.keyNames[0]}`, server.adminKey), warmups: 20, minGets: options['min-gets'] },
    });
    const gotten = new Promise((resolve, reject) => {
      getter.on('message', (message) => message !== 'ready' && resolve(message.latencies));
      getter.once('error', reject);
    });
    await new Promise((resolve) => getter.once('message', resolve));
    await server.stats();
    const rssBefore = rssBytes(server.pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pid))), 50);
    const started = performance.now();
    const watches = [];
    for (let index = 0; index < watchCount; index += 1) watches.push(await openWatch(server));
    await Promise.all(watches.map((watch) => watch.delivered));
    getter.postMessage('stop');
    const latencies = await gotten;
    await getter.terminate();
    const deliveredSeconds = (performance.now() - started) / 1000;
    const rssLoaded = rssBytes(server.pid);
    const loaded = await server.stats();
    clearInterval(sampler);
    peak = Math.max(peak, rssLoaded);
    for (const watch of watches) watch.close();
    // The server lets go of closed watches at once; a short pause lets it notice every close.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rssAfterClose = rssBytes(server.pid);
    const closed = await server.stats();
    const result = {
      watches: watchCount,
      rssBeforeMiB: round(rssBefore / MiB, 1),
      rssPeakMiB: round(peak / MiB, 1),
      rssDeliveredMiB: round(rssLoaded / MiB, 1),
      rssAfterCloseMiB: round(rssAfterClose / MiB, 1),
      rssPeakIncreaseMiB: round((peak - rssBefore) / MiB, 1),
      gets: latencies.length,
      getP50Ms: round(percentile(latencies, 50), 2),
      getP99Ms: round(percentile(latencies, 99), 2),
      deliveredSeconds: round(deliveredSeconds, 2),
      serverLoopDelayP99Ms: loaded.loopDelayMs.p99,
      serverLoopDelayMaxMs: loaded.loopDelayMs.max,
      serverMemoryDeliveredMiB: loaded.memoryMiB,
      serverMemoryAfterCloseMiB: closed.memoryMiB,
    };
    console.log(
      `  ${watchCount} watches: RSS ${result.rssBeforeMiB} → peak ${result.rssPeakMiB} MiB (+${result.rssPeakIncreaseMiB}), after close ${result.rssAfterCloseMiB} MiB; ` +
        `GET p50 ${result.getP50Ms} ms, p99 ${result.getP99Ms} ms over ${result.gets}; all keys delivered in ${result.deliveredSeconds} s; ` +
        `server loop delay p99 ${result.serverLoopDelayP99Ms} ms, max ${result.serverLoopDelayMaxMs} ms; heap used ${loaded.memoryMiB.heapUsed} MiB, external ${loaded.memoryMiB.external} MiB`,
    );
    return result;
  } finally {
    await server.stop();
    await dir.dispose();
  }
}

console.log(`watch-pressure: ${KEYS} keys, watches ${WATCH_COUNTS.join(', ')}${options.quick ? ' (quick)' : ''}${options.dist !== '' ? `, server from ${options.dist}` : ''}`);
const phases = [];
for (const count of WATCH_COUNTS) phases.push(await phase(count));
const baseline = phases.find((entry) => entry.watches === 0) ?? phases[0];
const table = phases
  .filter((entry) => entry !== baseline)
  .flatMap((entry) => [
    { benchmark: 'watch-pressure', metric: `management RSS increase at ${entry.watches} watches of ${KEYS} keys (MiB, peak)`, value: entry.rssPeakIncreaseMiB },
    {
      benchmark: 'watch-pressure',
      metric: `management GET p99 during ${entry.watches} watches of ${KEYS} keys (ms)`,
      value: entry.getP99Ms,
      baseline: baseline.getP99Ms,
      ratio: round(entry.getP99Ms / baseline.getP99Ms, 2),
    },
  ]);
const file = await writeResult('watch-pressure', {
  quick: options.quick,
  keys: KEYS,
  server: options.dist !== '' ? `dist from ${options.dist}` : 'this checkout',
  goal: '≤ +200 MB RSS at 500 watches and GET p99 ≤ 50 ms',
  phases,
  table,
});
console.log(`wrote ${file}`);
