// The syncer-bulk baseline, in its own Node process so its CPU is measured the way the syncer's is:
// the I/O a syncer cannot avoid. It lists and keeps a watch open on the virtual cluster's objects
// of the measured resource (Endpoints or EndpointSlices, all namespaces) and on the host
// namespace's objects of it managed by the vcluster (the syncer's label selector), as the
// syncer's informers of that resource do, then
// POSTs the already-translated host objects with the given concurrency, and ends when its host
// watch has seen all of them. It prints one JSON line:
// `{ "ready": true }` once both watches are open, then
// `{ "seconds", "postsDoneSeconds", "cpuMicros", "virtualEvents", "hostEvents" }` at the end,
// where cpuMicros is process.cpuUsage() (user + system) from the first POST to the end.
//
//   node benchmarks/lib/baseline-client.mjs <input.json>
// input.json: { virtualKubeconfig, hostKubeconfig, resourceType: { group?, version, resource },
//              hostNamespace, hostLabelSelector, concurrency, objects: [...] }
import { readFile } from 'node:fs/promises';
import { forEachConcurrent } from './bench-run.mjs';
import { collectionPath, unlimitedClient, watchObjects } from './endpoints-fixtures.mjs';

const input = JSON.parse(await readFile(process.argv[2], 'utf8'));
const { objects, hostNamespace, concurrency, resourceType } = input;
const virtualClient = unlimitedClient(input.virtualKubeconfig, 'baseline-virtual');
const hostClient = unlimitedClient(input.hostKubeconfig, 'baseline-host');

let virtualEvents = 0;
const virtualWatch = await watchObjects(virtualClient, resourceType, undefined, () => {
  virtualEvents += 1;
});
const seen = new Set();
let resolveAll;
const all = new Promise((resolve) => (resolveAll = resolve));
let hostEvents = 0;
const hostWatch = await watchObjects(
  hostClient,
  resourceType,
  hostNamespace,
  (event, at) => {
    hostEvents += 1;
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    seen.add(event.object.metadata.name);
    if (seen.size === objects.length) resolveAll(at);
  },
  { labelSelector: input.hostLabelSelector },
);
console.log(JSON.stringify({ ready: true }));

// Wait for the go from the parent (a line on stdin), so both contenders start on the same signal.
await new Promise((resolve) => process.stdin.once('data', resolve));
const path = collectionPath(resourceType, hostNamespace);
const cpuStart = process.cpuUsage();
const started = performance.now();
await forEachConcurrent(objects, concurrency, (object) => hostClient.create(path, object));
const posted = performance.now();
const end = await all;
const cpu = process.cpuUsage(cpuStart);
console.log(
  JSON.stringify({
    seconds: (end - started) / 1000,
    postsDoneSeconds: (posted - started) / 1000,
    cpuMicros: cpu.user + cpu.system,
    virtualEvents,
    hostEvents,
  }),
);
await Promise.all([virtualWatch.close(), hostWatch.close()]);
virtualClient.close();
hostClient.close();
process.stdin.destroy();
