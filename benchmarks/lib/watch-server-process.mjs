// The server side of benchmarks/watch-pressure.mjs: a management server in its own Node process,
// so that its resident memory is measured alone (/proc/<pid>/status):
//
//   node benchmarks/lib/watch-server-process.mjs DIR KEYS [DIST]
//
// startManagementServer as `vcsync dev` starts it (HTTPS from generated certificate files, the
// devcluster's storage engine in memory, the bootstrap admin key written to DIR/admin.key), its
// watch caps raised to 1000 per user so that one admin may hold every benchmark watch, and KEYS
// OwnedAccessKeys created through its registry store before it reports ready. DIST: the built
// code to run (default ../../dist; another checkout's dist/ measures that code). Prints one JSON
// line once ready, `{ url, caCertPem, adminKey, keyNames }`, answers `stats` lines on stdin (below),
// and stops on SIGTERM or SIGINT.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const [dir, keysArg, distArg] = process.argv.slice(2);
if (dir === undefined || !/^\d+$/.test(keysArg ?? '')) {
  console.error('usage: node benchmarks/lib/watch-server-process.mjs DIR KEYS [DIST]');
  process.exit(2);
}
const dist = resolve(distArg ?? join(fileURLToPath(import.meta.url), '..', '..', '..', 'dist'));
const { openDevStorage } = await import(join(dist, 'devcluster', 'index.js'));
const { ensureTlsAssets } = await import(join(dist, 'apiserver', 'security', 'tls-assets.js'));
const { startManagementServer } = await import(join(dist, 'management', 'index.js'));
const { silentLogger } = await import(join(dist, 'observe', 'logger.js'));

const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
const devStorage = await openDevStorage({});
const bootstrapKeyPath = join(dir, 'admin.key');
const server = await startManagementServer({
  storage: devStorage.storage,
  keyHashSecret: Buffer.alloc(32, 9),
  tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
  bootstrapKeyPath,
  watchLimits: { maxWatches: 1000, maxWatchesPerUser: 1000 },
  logger: silentLogger(),
});
const keys = Number(keysArg);
const keyNames = [];
const CONCURRENCY = 32;
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (;;) {
      const index = next++;
      if (index >= keys) return;
      const name = `bench-${String(index).padStart(5, '0')}`;
      const body = { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name }, spec: { user: `user-${index % 50}`, displayName: `benchmark key ${index}`, scope: { roles: [{ role: 'platformCLI' }] } } };
      await server.writer.create(server.ownedAccessKeys, '', body, { dryRun: false, fieldManager: 'watch-pressure' });
      keyNames.push(name);
    }
  }),
);
const adminKey = (await readFile(bootstrapKeyPath, 'utf8')).trim();
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server
    .close()
    .then(() => devStorage.close())
    .then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// A `stats` line on stdin answers one JSON line: the process's memory by kind and its event-loop
// delay since the previous `stats` (how long a callback, such as a GET, waited for the loop).
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'stats') return;
  const MiB = 1024 * 1024;
  const memory = process.memoryUsage();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  console.log(
    JSON.stringify({
      memoryMiB: Object.fromEntries(Object.entries(memory).map(([kind, bytes]) => [kind, Math.round((bytes / MiB) * 10) / 10])),
      loopDelayMs: { p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
    }),
  );
  loopDelay.reset();
});
console.log(JSON.stringify({ url: server.url, caCertPem: tls.caCertPem, adminKey, keyNames: keyNames.slice(0, 1) }));
