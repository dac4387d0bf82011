// Devcluster throughput: how fast Endpoints can be created over HTTP (in memory and on a durable
// data dir), and how quickly a write reaches 1 and 50 watchers. Imports the built server from
// ../dist, so build first: `npx tsc -p tsconfig.build.json`. `--quick` (or BENCH_QUICK=1) runs a
// smaller N for a smoke test. Each measurement runs `--rounds` times (default 3) and the median
// round is reported. Results: benchmarks/results/devcluster-throughput.json.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevCluster } from '../dist/devcluster/index.js';
import { benchArgs, writeResult } from './lib/bench-run.mjs';

const { quick, rounds: ROUNDS } = benchArgs({
  usage: 'usage: node benchmarks/devcluster-throughput.mjs [--quick] [--rounds 3]\n(build first: npx tsc -p tsconfig.build.json)',
  numbers: { rounds: 3 },
});
const CREATES = quick ? 300 : 2000;
const CONCURRENCY = 16;
const FANOUT_WRITES = quick ? 30 : 200;

function endpoints(name) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, labels: { app: 'bench' } },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }], ports: [{ name: 'http', port: 80 }] }],
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

const round = (value) => Math.round(value * 100) / 100;

async function createThroughput(label, options, creates = CREATES) {
  const cluster = await startDevCluster(options);
  try {
    const url = `${cluster.url}/api/v1/namespaces/default/endpoints`;
    // Warm-up (JIT, connection pool) so the first configuration measured is not penalised.
    for (let index = 0; index < 100; index += 1) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: endpoints(`warm-${index}`) });
      await response.arrayBuffer();
    }
    let next = 0;
    const latencies = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (;;) {
          const index = next++;
          if (index >= creates) return;
          const t0 = performance.now();
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: endpoints(`ep-${index}`) });
          if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
          await response.arrayBuffer();
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const elapsedMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    return {
      name: `create Endpoints (3 addresses), ${label}`,
      objects: creates,
      concurrency: CONCURRENCY,
      elapsedMs: Math.round(elapsedMs),
      objectsPerSecond: Math.round((creates / elapsedMs) * 1000),
      latencyP50Ms: round(percentile(latencies, 50)),
      latencyP99Ms: round(percentile(latencies, 99)),
    };
  } finally {
    await cluster.close();
  }
}

/** Opens `count` watches; each records when every object name first arrives. */
async function openWatchers(url, count) {
  const watchers = [];
  for (let index = 0; index < count; index += 1) {
    const controller = new AbortController();
    const arrivals = new Map();
    const response = await fetch(`${url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0`, { signal: controller.signal });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const pump = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          const now = performance.now();
          buffer += decoder.decode(value, { stream: true });
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            const event = JSON.parse(buffer.slice(0, newline));
            buffer = buffer.slice(newline + 1);
            const name = event.object?.metadata?.name;
            if (name !== undefined && !arrivals.has(name)) arrivals.set(name, now);
            newline = buffer.indexOf('\n');
          }
        }
      } catch {
        // Aborted at the end of the run.
      }
    })();
    watchers.push({ controller, arrivals, pump });
  }
  return watchers;
}

async function fanOutLatency(watcherCount) {
  const cluster = await startDevCluster();
  try {
    const watchers = await openWatchers(cluster.url, watcherCount);
    const sentAt = new Map();
    for (let index = 0; index < FANOUT_WRITES; index += 1) {
      const name = `cm-${index}`;
      sentAt.set(name, performance.now());
      const response = await fetch(`${cluster.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name }, data: { index: String(index) } }),
      });
      if (response.status !== 201) throw new Error(`create answered ${response.status}`);
      await response.arrayBuffer();
    }
    const deadline = performance.now() + 30_000;
    while (watchers.some((watcher) => watcher.arrivals.size < FANOUT_WRITES)) {
      if (performance.now() > deadline) throw new Error('watchers did not receive every event within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const latencies = [];
    for (const watcher of watchers) {
      for (const [name, arrived] of watcher.arrivals) latencies.push(arrived - sentAt.get(name));
    }
    latencies.sort((a, b) => a - b);
    for (const watcher of watchers) watcher.controller.abort();
    await Promise.all(watchers.map((watcher) => watcher.pump));
    return {
      name: `watch fan-out, ${watcherCount} watcher${watcherCount === 1 ? '' : 's'}`,
      watchers: watcherCount,
      writes: FANOUT_WRITES,
      samples: latencies.length,
      latencyP50Ms: round(percentile(latencies, 50)),
      latencyP99Ms: round(percentile(latencies, 99)),
    };
  } finally {
    await cluster.close();
  }
}

/**
 * The round whose `key` is the median of `rounds` (the lower middle one for an even count), with
 * every round's value of `key` beside it so the spread stays visible.
 */
function medianRound(rounds, key) {
  const sorted = [...rounds].sort((a, b) => a[key] - b[key]);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], rounds: rounds.length, [`${key}Rounds`]: rounds.map((round) => round[key]) };
}

const results = [];
// A discarded first round: the first configuration measured otherwise pays for JIT warm-up.
await createThroughput('warm-up', {}, Math.min(CREATES, 500));
const memoryRounds = [];
const durableRounds = [];
for (let round = 0; round < ROUNDS; round += 1) {
  // Memory and data dir take turns so both see the same stretch of a noisy machine.
  memoryRounds.push(await createThroughput('memory', {}));
  const dataDir = await mkdtemp(join(tmpdir(), 'vcsync-devcluster-bench-'));
  try {
    durableRounds.push(await createThroughput('data dir (fsync)', { dataDir }));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
results.push(medianRound(memoryRounds, 'objectsPerSecond'), medianRound(durableRounds, 'objectsPerSecond'));
for (const watchers of [1, 50]) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) rounds.push(await fanOutLatency(watchers));
  results.push(medianRound(rounds, 'latencyP99Ms'));
}

const report = { quick, rounds: ROUNDS, results };
// Rows for the README table (benchmarks/render-table.mjs); the data-dir run is compared with memory.
const [memory, durable, fanOut1, fanOut50] = results;
report.table = [
  { benchmark: 'devcluster', metric: `creates/s, ${memory.objects} Endpoints, concurrency ${memory.concurrency}, memory (median of ${ROUNDS} rounds)`, value: memory.objectsPerSecond },
  { benchmark: 'devcluster', metric: 'creates/s, data dir (fsync, group commit)', value: durable.objectsPerSecond, baseline: memory.objectsPerSecond, ratio: Number((durable.objectsPerSecond / memory.objectsPerSecond).toFixed(2)) },
  { benchmark: 'devcluster', metric: `watch fan-out p50 / p99 ms, 1 watcher (round of median p99 of ${ROUNDS})`, value: `${fanOut1.latencyP50Ms} / ${fanOut1.latencyP99Ms}` },
  { benchmark: 'devcluster', metric: `watch fan-out p50 / p99 ms, 50 watchers (round of median p99 of ${ROUNDS})`, value: `${fanOut50.latencyP50Ms} / ${fanOut50.latencyP99Ms}` },
];
await writeResult('devcluster-throughput', report);
for (const result of results) {
  const rate = result.objectsPerSecond !== undefined ? `${result.objectsPerSecond} objects/s, ` : '';
  console.log(`${result.name}: ${rate}p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms`);
}
