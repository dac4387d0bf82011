// The GET loop of benchmarks/watch-pressure.mjs on a thread of its own: the latencies it records
// are the server's answer times, not also the time the benchmark's main thread (busy reading
// hundreds of watch streams) took to notice an answer. workerData: `{ url, caCertPem, request,
// warmups, minGets }` (`request` pre-serialised bytes). Sends `warmups` GETs unrecorded, posts
// 'ready', then GETs back to back on one keep-alive connection until told 'stop' and at least
// `minGets` are done, and posts `{ latencies }` (ms).
import { parentPort, workerData } from 'node:worker_threads';
import { openConnections } from './raw-https-client.mjs';

const { url, caCertPem, warmups, minGets } = workerData;
const request = Buffer.from(workerData.request);
let stopping = false;
parentPort.on('message', (message) => {
  if (message === 'stop') stopping = true;
});
const [connection] = await openConnections(url, caCertPem, 1);
for (let warm = 0; warm < warmups; warm += 1) await connection.send(request);
parentPort.postMessage('ready');
const latencies = [];
while (!stopping || latencies.length < minGets) {
  const sent = performance.now();
  const answer = await connection.send(request);
  if (answer.status !== 200) throw new Error(`GET answered ${answer.status}`);
  latencies.push(performance.now() - sent);
}
connection.close();
parentPort.postMessage({ latencies });
