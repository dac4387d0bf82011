import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKubeConfig, kubeConfigYaml, type KubeConfigDocument } from '#vcsync/devcluster/kube-config.js';
import { issueClientCertificate } from '#vcsync/apiserver/security/certificate-issuer.js';
import { ensureTlsAssets, LEAF_VALIDITY_MS, type TlsAssets } from '#vcsync/apiserver/security/tls-assets.js';
import { loadClusterConfig } from '#vcsync/kube/kube-config.js';
import { RestClient } from '#vcsync/kube/rest-client.js';
import { ControlPlaneProcess } from './control-plane-process.js';
import { freePorts } from './free-ports.js';
import { readKubeAssets, type KubeAssets } from './kube-assets.js';

/** Options of {@link startRealControlPlane}. */
export interface RealControlPlaneOptions {
  /** The binaries. Default: `readKubeAssets()`, i.e. the directory in VCSYNC_KUBE_ASSETS. */
  assets?: KubeAssets;
  /**
   * Also start kube-controller-manager (garbage collector, namespace controller, CSR signing with
   * the cluster CA, service-account tokens), without leader election. Default false.
   */
  controllers?: boolean;
  /**
   * Further kube-controller-manager flags (with `controllers`), e.g.
   * `--controllers=*,-endpointslice-mirroring-controller` to run a cluster without a controller
   * (a later flag of the same name wins over the defaults given here). Default: none.
   */
  controllerManagerArgs?: readonly string[];
  /**
   * Also authenticate bearer tokens through a TokenReview webhook: `configPath` is the webhook's
   * kubeconfig-format file (server URL + CA), passed as `--authentication-token-webhook-config-file`
   * with `--authentication-token-webhook-version=v1`; `cacheTtlSeconds` is
   * `--authentication-token-webhook-cache-ttl` (the real default is 120: answers, accepted or
   * refused, are cached that long per token). Default: no webhook.
   */
  tokenWebhook?: { configPath: string; cacheTtlSeconds: number };
  /**
   * Further kube-apiserver flags, e.g. `--authentication-config=<file>` to trust a JWT issuer.
   * Default: none.
   */
  apiserverArgs?: readonly string[];
  /** Deadline for etcd, kube-apiserver and kube-controller-manager to become ready, in ms. Default 180 000. */
  startTimeoutMs?: number;
  /** Time each process gets between SIGTERM and SIGKILL on close, in ms. Default 10 000. */
  stopGraceMs?: number;
  /**
   * Where the ports of each attempt come from (etcd client, etcd peer, kube-apiserver,
   * kube-controller-manager). Default: {@link freePorts}.
   */
  ports?: (count: number) => Promise<number[]>;
}

/** How long each part took to become ready, in ms. */
export interface StartupTimes {
  etcdMs: number;
  apiserverMs: number;
  /** Absent without `controllers`. */
  controllerManagerMs?: number;
  totalMs: number;
  /** Starts on fresh ports after a process could not bind its own: 0 almost always. */
  portRetries: number;
}

/** A running etcd + kube-apiserver (+ kube-controller-manager), all on loopback. */
export interface RealControlPlane {
  /** The API server's URL, `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** A kubeconfig with the admin client certificate (`system:masters`) and the cluster CA. */
  readonly kubeconfig: KubeConfigDocument;
  /** {@link kubeconfig} as YAML. */
  readonly kubeconfigYaml: string;
  /** {@link kubeconfig} written to a file in the control plane's temp dir. */
  readonly kubeconfigPath: string;
  /** A RestClient authenticated as the admin, no client-side rate limit. */
  readonly adminClient: RestClient;
  /** The cluster CA, admin and serving certificates (the CA also signs CSRs with `controllers`). */
  readonly tls: TlsAssets;
  /** The binaries it runs. */
  readonly assets: KubeAssets;
  /** The temp dir with data, certificates, kubeconfigs and one log file per process. */
  readonly dir: string;
  readonly startup: StartupTimes;
  /**
   * Restarts kube-apiserver on the same port, certificates and etcd (SIGTERM, SIGKILL after the
   * grace; then awaited on `/readyz` as at start): an API-server restart that loses nothing etcd
   * stored. Rejects if it does not become ready within the start timeout.
   */
  restartApiserver(): Promise<void>;
  /** Stops every process (SIGTERM, then SIGKILL after the grace), removes the temp dir. Idempotent. */
  close(): Promise<void>;
}

/** The Service IP range; its first address belongs to the `kubernetes` Service. */
const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const LOOPBACK = '127.0.0.1';

/**
 * Starts a real control plane as controller-runtime's envtest does: etcd (temp data dir,
 * `--unsafe-no-fsync`), then kube-apiserver with RBAC, a generated CA, serving and admin client
 * certificates and service-account keys, then (with `controllers`) kube-controller-manager; each
 * on a loopback port drawn outside the kernel's ephemeral range (free-ports.ts), each awaited on
 * its health endpoint (etcd `/health`, the API server's `/readyz`, the controller manager's
 * `/healthz`). On failure everything started is stopped and the error carries the tail of every
 * log; when the failure was a process finding its port taken, it all starts again on fresh
 * ports, three attempts in all within the one start timeout. Start one per test file, not per test:
 * it takes seconds (docs/testing.md). Like envtest's, the API server advertises 127.0.0.1, which
 * Endpoints validation refuses: `default/kubernetes` has its Service but no Endpoints.
 */
export async function startRealControlPlane(options: RealControlPlaneOptions = {}): Promise<RealControlPlane> {
  const started = Date.now();
  const deadline = started + (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  for (let portRetries = 0; ; portRetries++) {
    const ports = await (options.ports ?? freePorts)(4);
    try {
      return await startOnPorts(options, ports, { started, deadline, portRetries });
    } catch (err) {
      if (!(err instanceof PortTakenError)) throw err;
      if (portRetries + 1 >= PORT_ATTEMPTS) {
        throw new Error(`the real control plane did not start: each of ${PORT_ATTEMPTS} attempts on fresh ports found one taken; the last: ${err.reason}\n${err.logs}`, { cause: err });
      }
    }
  }
}

/** {@link RealControlPlaneOptions.startTimeoutMs} when not given. */
const DEFAULT_START_TIMEOUT_MS = 180_000;

/** Attempts on fresh ports before a bind failure is the start's failure. */
const PORT_ATTEMPTS = 3;

/** The start failed because a process found its port taken: worth another attempt on others. */
class PortTakenError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly logs: string,
    options: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What a Go server (etcd, kube-apiserver, kube-controller-manager) logs when its port is taken. */
const PORT_TAKEN = /bind: address already in use/;

/** One attempt of {@link startRealControlPlane} on the given ports. */
async function startOnPorts(
  options: RealControlPlaneOptions,
  ports: readonly number[],
  attempt: { started: number; deadline: number; portRetries: number },
): Promise<RealControlPlane> {
  const assets = options.assets ?? readKubeAssets();
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const stopGraceMs = options.stopGraceMs ?? 10_000;
  const { deadline } = attempt;
  const attemptStarted = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'vcsync-real-cluster-'));
  const processes: ControlPlaneProcess[] = [];
  let adminClient: RestClient | undefined;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    adminClient?.close();
    // Reverse start order: controllers and the API server before the store they need.
    for (const child of [...processes].reverse()) await child.stop(stopGraceMs);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const [etcdClientPort, etcdPeerPort, apiserverPort, controllerManagerPort] = ports;
    if (controllerManagerPort === undefined) throw new Error(`four ports are needed, ${ports.length} were given`);
    const url = `https://${LOOPBACK}:${apiserverPort}`;
    const files = await writeCredentials(dir, url);
    const etcdUrl = `http://${LOOPBACK}:${etcdClientPort}`;
    const etcd = ControlPlaneProcess.start('etcd', assets.etcd, [
      '--name=vcsync',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://${LOOPBACK}:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://${LOOPBACK}:${etcdPeerPort}`,
      `--initial-cluster=vcsync=http://${LOOPBACK}:${etcdPeerPort}`,
      '--unsafe-no-fsync',
    ], join(dir, 'etcd.log'));
    processes.push(etcd);
    await waitUntilHealthy(processes, `etcd at ${etcdUrl}/health`, deadline, () => probe(`${etcdUrl}/health`, {}));
    const etcdReady = Date.now();

    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--cert-dir=${join(dir, 'apiserver')}`,
      `--tls-cert-file=${files.tls.serverCertPath}`,
      `--tls-private-key-file=${files.tls.serverKeyPath}`,
      `--client-ca-file=${files.tls.caCertPath}`,
      `--bind-address=${LOOPBACK}`,
      `--advertise-address=${LOOPBACK}`,
      `--secure-port=${apiserverPort}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
      `--service-account-key-file=${files.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
      // No pods run here, and pods created by tests must not wait for service-account tokens.
      '--disable-admission-plugins=ServiceAccount',
      ...(options.tokenWebhook !== undefined
        ? [
            `--authentication-token-webhook-config-file=${options.tokenWebhook.configPath}`,
            '--authentication-token-webhook-version=v1',
            `--authentication-token-webhook-cache-ttl=${options.tokenWebhook.cacheTtlSeconds}s`,
          ]
        : []),
      ...(options.apiserverArgs ?? []),
    ];
    processes.push(ControlPlaneProcess.start('kube-apiserver', assets.kubeApiserver, apiserverArgs, join(dir, 'kube-apiserver.log')));
    const adminTls = { ca: files.tls.caCertPem, cert: files.tls.adminCertPem, key: files.tls.adminKeyPem };
    await waitUntilHealthy(processes, `kube-apiserver at ${url}/readyz`, deadline, () => probe(`${url}/readyz`, adminTls));
    const restartApiserver = async (): Promise<void> => {
      const index = processes.findIndex((child) => child.name === 'kube-apiserver');
      await processes[index]?.stop(stopGraceMs);
      processes[index] = ControlPlaneProcess.start('kube-apiserver', assets.kubeApiserver, apiserverArgs, join(dir, 'kube-apiserver.log'));
      await waitUntilHealthy(processes, `kube-apiserver at ${url}/readyz after its restart`, Date.now() + startTimeoutMs, () => probe(`${url}/readyz`, adminTls));
    };
    const apiserverReady = Date.now();

    let controllerManagerReady: number | undefined;
    if (options.controllers === true) {
      const healthz = `https://${LOOPBACK}:${controllerManagerPort}/healthz`;
      const controllerManager = ControlPlaneProcess.start('kube-controller-manager', assets.kubeControllerManager, [
        `--kubeconfig=${files.controllerManagerKubeconfig}`,
        `--authentication-kubeconfig=${files.controllerManagerKubeconfig}`,
        `--authorization-kubeconfig=${files.controllerManagerKubeconfig}`,
        `--bind-address=${LOOPBACK}`,
        `--secure-port=${controllerManagerPort}`,
        `--cert-dir=${join(dir, 'controller-manager')}`,
        '--leader-elect=false',
        `--cluster-signing-cert-file=${files.tls.caCertPath}`,
        `--cluster-signing-key-file=${files.caKeyPath}`,
        `--root-ca-file=${files.tls.caCertPath}`,
        `--service-account-private-key-file=${files.serviceAccountPrivateKey}`,
        `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
        ...(options.controllerManagerArgs ?? []),
      ], join(dir, 'kube-controller-manager.log'));
      processes.push(controllerManager);
      // Its serving certificate is self-signed in --cert-dir; /healthz needs no credentials.
      await waitUntilHealthy(processes, `kube-controller-manager at ${healthz}`, deadline, () => probe(healthz, { rejectUnauthorized: false }));
      controllerManagerReady = Date.now();
    }

    const kubeconfig = buildKubeConfig({
      name: 'real-cluster',
      server: url,
      caCertPem: files.tls.caCertPem,
      clientCertPem: files.tls.adminCertPem,
      clientKeyPem: files.tls.adminKeyPem,
    });
    const yaml = kubeConfigYaml(kubeconfig);
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    await writeFile(kubeconfigPath, yaml, { mode: 0o600 });
    adminClient = new RestClient({
      cluster: loadClusterConfig({ kind: 'object', config: kubeconfig }, { name: 'real-cluster-admin' }),
      qps: Infinity,
    });
    const startup: StartupTimes = {
      etcdMs: etcdReady - attemptStarted,
      apiserverMs: apiserverReady - etcdReady,
      ...(controllerManagerReady !== undefined ? { controllerManagerMs: controllerManagerReady - apiserverReady } : {}),
      totalMs: Date.now() - attempt.started,
      portRetries: attempt.portRetries,
    };
    return { url, kubeconfig, kubeconfigYaml: yaml, kubeconfigPath, adminClient, tls: files.tls, assets, dir, startup, restartApiserver, close };
  } catch (err) {
    const logs = processes.map((child) => `--- ${child.name} (${child.exitDescription ?? 'running'}), ${child.logFile}:\n${child.logTail()}`).join('\n');
    const portTaken = processes.some((child) => child.exitDescription !== undefined && PORT_TAKEN.test(child.logTail()));
    await close();
    const reason = err instanceof Error ? err.message : String(err);
    const message = `the real control plane did not start: ${reason}\n${logs}`;
    throw portTaken ? new PortTakenError(message, reason, logs, { cause: err }) : new Error(message, { cause: err });
  }
}

/** The files the processes read: certificates, the service-account key pair, the KCM kubeconfig. */
interface CredentialFiles {
  tls: TlsAssets;
  caKeyPath: string;
  serviceAccountPrivateKey: string;
  serviceAccountPublicKey: string;
  controllerManagerKubeconfig: string;
}

async function writeCredentials(dir: string, apiserverUrl: string): Promise<CredentialFiles> {
  const pki = join(dir, 'pki');
  // CA, a serving certificate for 127.0.0.1/localhost and the admin client certificate
  // (CN=admin, O=system:masters): the devcluster's own issuer.
  const tls = await ensureTlsAssets(pki);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serviceAccountPrivateKey = join(pki, 'service-account.key');
  const serviceAccountPublicKey = join(pki, 'service-account.pub');
  await writeFile(serviceAccountPrivateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(serviceAccountPublicKey, publicKey.export({ type: 'spki', format: 'pem' }));
  // The controller manager's own identity, in system:masters so every controller may act
  // without --use-service-account-credentials.
  const controllerManager = await issueClientCertificate(
    { certPem: tls.caCertPem, keyPem: tls.caKeyPem },
    { commonName: 'system:kube-controller-manager', organizations: ['system:masters'] },
    LEAF_VALIDITY_MS,
  );
  const controllerManagerKubeconfig = join(dir, 'controller-manager.kubeconfig');
  await writeFile(
    controllerManagerKubeconfig,
    kubeConfigYaml(
      buildKubeConfig({
        name: 'kube-controller-manager',
        server: apiserverUrl,
        caCertPem: tls.caCertPem,
        clientCertPem: controllerManager.certPem,
        clientKeyPem: controllerManager.keyPem,
      }),
    ),
    { mode: 0o600 },
  );
  return { tls, caKeyPath: join(pki, 'ca.key'), serviceAccountPrivateKey, serviceAccountPublicKey, controllerManagerKubeconfig };
}

/** Pause between health probes while the control plane starts. */
const HEALTH_POLL_MS = 100;

/**
 * Waits for `healthy` to return true, failing at `deadline` or as soon as any process of the
 * control plane has exited (a crash would otherwise look like a slow start).
 */
async function waitUntilHealthy(processes: readonly ControlPlaneProcess[], what: string, deadline: number, healthy: () => Promise<boolean>): Promise<void> {
  for (;;) {
    const dead = processes.find((child) => child.exitDescription !== undefined);
    if (dead !== undefined) throw new Error(`${dead.name} ${dead.exitDescription ?? 'exited'} before ${what} was healthy`);
    if (await healthy()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
  }
}

/** Whether GET `url` answers 200 within 5 s (TLS options for https). */
function probe(url: string, tls: https.RequestOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const request = get(url, { ...tls, timeout: 5_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', () => resolve(false));
  });
}
