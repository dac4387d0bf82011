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
// line once ready, `{ url, caCertPem, adminKey, keyNames }`, and stops on SIGTERM or SIGINT.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
console.log(JSON.stringify({ url: server.url, caCertPem: tls.caCertPem, adminKey, keyNames: keyNames.slice(0, 1) }));
