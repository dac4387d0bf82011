// The server side of benchmarks/management-auth.mjs, one server per Node process so that the load
// generator's CPU is its own and the server can be profiled alone (`--cpu-prof`):
//
//   node benchmarks/lib/auth-server-process.mjs devcluster DIR TOKEN
//   node benchmarks/lib/auth-server-process.mjs management DIR [AUTH_CACHE_KEYS] [VIRTUAL_JSON]
//
// devcluster: startDevCluster over HTTPS (TLS material generated in DIR) accepting TOKEN as a
// bearer token. management: startManagementServer as `vcsync dev` starts it (HTTPS from generated
// certificate files, the devcluster's storage engine from openDevStorage, in memory, and the
// bootstrap admin key written to DIR/admin.key), its key cache sized AUTH_CACHE_KEYS when given
// (`default`: the server's default). VIRTUAL_JSON, a file `{ name, namespace, ingressHost,
// kubeConfig, qps? }`, makes it serve the kube configs of that virtual cluster (a devcluster, whose
// kubeConfig the devcluster mode prints), signing client certificates through its CSR API with a
// client limited to `qps` requests/s (burst 80, the daemon's virtual client; absent: unlimited).
// Imports the built code from dist/ (build first). Prints one JSON line once it listens,
// `{ url, caCertPem, adminKey?, kubeConfig? }`, and stops on SIGTERM or SIGINT.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevCluster, openDevStorage } from '../../dist/devcluster/index.js';
import { ensureTlsAssets } from '../../dist/apiserver/security/tls-assets.js';
import { startManagementServer } from '../../dist/management/index.js';
import { silentLogger } from '../../dist/observe/logger.js';
import { loadClusterConfig } from '../../dist/kube/kube-config.js';
import { RestClient } from '../../dist/kube/rest-client.js';

const [mode, dir, extra, virtualJson] = process.argv.slice(2);

async function devcluster() {
  const cluster = await startDevCluster({ tls: { dir: join(dir, 'tls') }, tokens: [extra] });
  const caData = cluster.kubeConfig.clusters[0].cluster['certificate-authority-data'];
  return { ready: { url: cluster.url, caCertPem: Buffer.from(caData, 'base64').toString('utf8'), kubeConfig: cluster.kubeConfig }, close: () => cluster.close() };
}

async function management() {
  const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
  const devStorage = await openDevStorage({});
  const bootstrapKeyPath = join(dir, 'admin.key');
  const virtual = virtualJson !== undefined ? JSON.parse(await readFile(virtualJson, 'utf8')) : undefined;
  const client = virtual !== undefined ? new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: virtual.kubeConfig }, { name: 'virtual' }), qps: virtual.qps ?? Infinity }) : undefined;
  const server = await startManagementServer({
    storage: devStorage.storage,
    keyHashSecret: Buffer.alloc(32, 9),
    tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
    bootstrapKeyPath,
    ...(extra !== undefined && extra !== 'default' ? { authCacheMaxKeys: Number(extra) } : {}),
    ...(virtual !== undefined
      ? {
          virtualCluster: {
            name: virtual.name,
            namespace: virtual.namespace,
            ingressHost: () => virtual.ingressHost,
            caCertPem: Buffer.from(virtual.kubeConfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'),
            client,
          },
        }
      : {}),
    logger: silentLogger(),
  });
  const adminKey = (await readFile(bootstrapKeyPath, 'utf8')).trim();
  const close = async () => {
    try {
      await server.close();
    } finally {
      client?.close();
      await devStorage.close();
    }
  };
  return { ready: { url: server.url, caCertPem: tls.caCertPem, adminKey }, close };
}

const starters = { devcluster, management };
if (starters[mode] === undefined || dir === undefined) {
  console.error('usage: node benchmarks/lib/auth-server-process.mjs devcluster|management DIR [TOKEN|AUTH_CACHE_KEYS|default] [VIRTUAL_JSON]');
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
