import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readKubeAssets, type KubeAssets } from './kube-assets.js';

/** How the stand-in kube-apiserver behaves. */
export type StandInApiserver =
  /** Serves 200 on every path over TLS with the certificate it is given: ready at once. */
  | 'ready'
  /** Prints an error (not Go's bind failure, so the harness does not start again) and exits 1. */
  | 'crash'
  /** Prints what the real one prints when its port is taken, and exits 1. */
  | 'port-taken'
  /** Never listens and ignores SIGTERM: only SIGKILL ends it. */
  | 'stuck';

const node = `#!${process.execPath}`;

/** Each stand-in writes its pid to `<dir>/<name>.pid` and appends what it does with signals to `events`. */
const prologue = (dir: string, name: string, events: string): string => `${node}
const fs = require('node:fs');
const arg = (flag) => process.argv.find((a) => a.startsWith('--' + flag + '='))?.slice(flag.length + 3);
const event = (text) => fs.appendFileSync(${JSON.stringify(events)}, text + '\\n');
fs.writeFileSync(${JSON.stringify(join(dir, `${name}.pid`))}, String(process.pid));
`;

const ETCD = `
const url = new URL(arg('listen-client-urls'));
require('node:http').createServer((req, res) => res.end('{"health":"true"}')).listen(Number(url.port), url.hostname);
process.on('SIGTERM', () => { event('etcd SIGTERM'); process.exit(0); });
`;

const APISERVERS: Record<StandInApiserver, string> = {
  ready: `
const tls = { cert: fs.readFileSync(arg('tls-cert-file')), key: fs.readFileSync(arg('tls-private-key-file')) };
require('node:https').createServer(tls, (req, res) => res.end('ok')).listen(Number(arg('secure-port')), arg('bind-address'));
`,
  crash: `
console.error('E0101 fake: failed to listen: address already in use');
process.exit(1);
`,
  'port-taken': `
console.error('E0101 run.go:72] "command failed" err="failed to create listener: failed to listen on 127.0.0.1:' + arg('secure-port') + ': listen tcp 127.0.0.1:' + arg('secure-port') + ': bind: address already in use"');
process.exit(1);
`,
  stuck: `
process.on('SIGTERM', () => event('apiserver ignored SIGTERM'));
setInterval(() => {}, 1000);
`,
};

/**
 * Writes Node scripts standing in for the control plane's binaries into `dir`, for tests of the
 * harness itself that must run without a Kubernetes build: an etcd that answers its health check
 * and records SIGTERM in `events`, a kube-apiserver that behaves as `apiserver` says, and a
 * kube-controller-manager and kubectl that exit 1. Returns them as {@link KubeAssets}.
 */
export async function writeStandInKubeAssets(dir: string, options: { apiserver: StandInApiserver; events: string }): Promise<KubeAssets> {
  const scripts: Record<string, string> = {
    etcd: prologue(dir, 'etcd', options.events) + ETCD,
    'kube-apiserver': prologue(dir, 'kube-apiserver', options.events) + APISERVERS[options.apiserver],
    'kube-controller-manager': `${node}\nprocess.exit(1);\n`,
    kubectl: `${node}\nprocess.exit(1);\n`,
  };
  for (const [name, text] of Object.entries(scripts)) {
    await writeFile(join(dir, name), text);
    await chmod(join(dir, name), 0o755);
  }
  await writeFile(join(dir, 'versions.json'), JSON.stringify({ kubernetes: 'v1.36.3', etcd: 'v3.6.16' }));
  return readKubeAssets(dir);
}
