// The patch sandbox's transport alone: CPU per round trip, in this process and in the worker,
// of Node's JSON IPC channel (what src/patches/patch-sandbox.ts uses) against length-prefixed
// frames on two plain pipes (benchmarks/lib/ipc-frames.mjs), read by the worker in its event loop
// (`pipes`) or with a blocking read(2) outside it (`blocking`), with an echo worker and the payload
// of a 32-object (and a 1-object) forward crossing. Runs interleaved, medians. ADR 0034 records
// the outcome (no difference worth a protocol of our own); docs/benchmarks.md the blocking worker's.
// `thread`: the same echo on a worker thread (postMessage), for what a process costs over a thread;
// its "here" figure is the whole process, both threads, and the worker's is 0 (ADR 0034 says why
// the sandbox cannot use threads).
//
//   node benchmarks/sandbox-ipc-framing.mjs [--quick] [--trips 5000] [--rounds 5]
//
// Writes benchmarks/results/sandbox-ipc-framing.json and prints a summary.
import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { benchArgs, median, round, writeResult } from './lib/bench-run.mjs';
import { encodeFrame, frameReader } from './lib/ipc-frames.mjs';

const { trips, rounds } = benchArgs({
  usage: 'usage: node benchmarks/sandbox-ipc-framing.mjs [--quick] [--trips 5000] [--rounds 5]',
  numbers: { trips: (q) => (q ? 500 : 5000), rounds: (q) => (q ? 1 : 5) },
});
const ECHO = fileURLToPath(new URL('./lib/ipc-framing-echo.mjs', import.meta.url));
// One object's item as runForwardExpressions builds it for the patches benchmark.
const ITEM = '[null,null,0,"","10.0.0.1",0,"","10.0.0.2",0,"","10.0.0.3",1,"","payments",2,"","web"]';

/** A started echo worker and a function making one round trip (answers parsed as the sandbox does). */
function startWorker(transport) {
  let settle;
  if (transport === 'thread') {
    const thread = new Worker(ECHO, { argv: ['thread'] });
    thread.on('message', (message) => settle(JSON.parse(message.outputJson)));
    const call = (header, payload) => new Promise((resolve) => {
      // Usage: the thread's CPU is already in this process' figure.
      if (payload === undefined) resolve(0);
      else {
        settle = resolve;
        thread.postMessage({ ...header, inputJson: payload });
      }
    });
    return { worker: { kill: () => void thread.terminate() }, call };
  }
  if (transport === 'ipc') {
    const worker = fork(ECHO, ['ipc'], { serialization: 'json', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    worker.on('message', (message) => settle(message.type === 'usage' ? message.micros : JSON.parse(message.outputJson)));
    const call = (header, payload) => new Promise((resolve) => {
      settle = resolve;
      worker.send(payload === undefined ? header : { ...header, inputJson: payload });
    });
    return { worker, call };
  }
  const worker = spawn(process.execPath, [ECHO, transport], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  worker.stdio[4].on('data', frameReader((header, payload) => settle(header.type === 'usage' ? header.micros : JSON.parse(payload))));
  const call = (header, payload) => new Promise((resolve) => {
    settle = resolve;
    worker.stdio[3].write(encodeFrame(header, payload));
  });
  return { worker, call };
}

async function measure(transport, objects) {
  const input = `[${Array(objects).fill(ITEM).join(',')}]`;
  const { worker, call } = startWorker(transport);
  const cross = () => call({ type: 'cross', id: 1, programId: 1, mode: 'forward' }, input);
  try {
    for (let i = 0; i < Math.min(1000, trips); i += 1) await cross();
    const workerStart = await call({ type: 'usage' });
    const start = process.cpuUsage();
    for (let i = 0; i < trips; i += 1) await cross();
    const cpu = process.cpuUsage(start);
    const workerEnd = await call({ type: 'usage' });
    return { mainMicros: (cpu.user + cpu.system) / trips, workerMicros: (workerEnd - workerStart) / trips };
  } finally {
    worker.kill();
  }
}

const cases = [32, 1].flatMap((objects) => ['ipc', 'pipes', 'blocking', 'thread'].map((transport) => ({ objects, transport })));
const perRound = cases.map(() => []);
for (let r = 0; r < rounds; r += 1) {
  for (const [index, entry] of cases.entries()) perRound[index].push(await measure(entry.transport, entry.objects));
}
const results = cases.map((entry, index) => ({
  ...entry,
  mainMicrosPerRoundTrip: round(median(perRound[index].map((m) => m.mainMicros))),
  workerMicrosPerRoundTrip: round(median(perRound[index].map((m) => m.workerMicros))),
}));
const file = await writeResult('sandbox-ipc-framing', { tripsPerRound: trips, rounds, results });
for (const r of results) {
  console.log(`${String(r.objects).padStart(2)} object(s), ${r.transport.padEnd(8)}: ${r.mainMicrosPerRoundTrip} µs CPU here, ${r.workerMicrosPerRoundTrip} µs in the worker per round trip`);
}
console.log(`medians of ${rounds} rounds of ${trips} round trips; written to ${file}`);
