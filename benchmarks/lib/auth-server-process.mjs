// The server side of benchmarks/management-auth.mjs, one server per Node process so that the load
// generator's CPU is its own and the server can be profiled alone (`--cpu-prof`):
//
//   node benchmarks/lib/auth-server-process.mjs devcluster DIR TOKEN
//   node benchmarks/lib/auth-server-process.mjs management DIR [AUTH_CACHE_KEYS]
//
// devcluster: startDevCluster over HTTPS (TLS material generated in DIR) accepting TOKEN as a
// bearer token. management: startManagementServer as `vcsync dev` starts it (HTTPS from generated
// certificate files, the devcluster's storage engine from openDevStorage, in memory, and the
// bootstrap admin key written to DIR/admin.key), its key cache sized AUTH_CACHE_KEYS when given.
// Imports the built code from dist/ (build first). Prints one JSON line once it listens,
// `{ url, caCertPem, adminKey? }`, and stops on SIGTERM or SIGINT.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevCluster, openDevStorage } from '../../dist/devcluster/index.js';
import { ensureTlsAssets } from '../../dist/apiserver/security/tls-assets.js';
import { startManagementServer } from '../../dist/management/index.js';
import { silentLogger } from '../../dist/observe/logger.js';

const [mode, dir, extra] = process.argv.slice(2);

async function devcluster() {
  const cluster = await startDevCluster({ tls: { dir: join(dir, 'tls') }, tokens: [extra] });
  const caData = cluster.kubeConfig.clusters[0].cluster['certificate-authority-data'];
  return { ready: { url: cluster.url, caCertPem: Buffer.from(caData, 'base64').toString('utf8') }, close: () => cluster.close() };
}

async function management() {
  const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
  const devStorage = await openDevStorage({});
  const bootstrapKeyPath = join(dir, 'admin.key');
  const server = await startManagementServer({
    storage: devStorage.storage,
    keyHashSecret: Buffer.alloc(32, 9),
    tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
    bootstrapKeyPath,
    ...(extra !== undefined ? { authCacheMaxKeys: Number(extra) } : {}),
    logger: silentLogger(),
  });
  const adminKey = (await readFile(bootstrapKeyPath, 'utf8')).trim();
  const close = async () => {
    try {
      await server.close();
    } finally {
      await devStorage.close();
    }
  };
  return { ready: { url: server.url, caCertPem: tls.caCertPem, adminKey }, close };
}

const starters = { devcluster, management };
if (starters[mode] === undefined || dir === undefined) {
  console.error('usage: node benchmarks/lib/auth-server-process.mjs devcluster|management DIR [TOKEN|AUTH_CACHE_KEYS]');
  process.exit(2);
}
const server = await starters[mode]();
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // Exits once closed (a --cpu-prof profile is written at exit).
  server.close().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
console.log(JSON.stringify(server.ready));
