import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify as toYaml } from 'yaml';
import { ensureTlsAssets, type TlsAssets } from '../../../src/apiserver/security/tls-assets.js';
import { parseConfig } from '../../../src/config/index.js';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { buildKubeConfig, kubeConfigYaml } from '../../../src/devcluster/kube-config.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { KubectlEnv, kubectlMissing } from '../../support/kubectl.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

/**
 * The files of config/deploy/ applied with kubectl exactly as docs/deployment.md "Deploy as a
 * sidecar next to a vcluster" says, to the real kube-apiserver (the judge: server-side dry run,
 * then for real, then what the controllers make of it; with the kubectl of its release) and to a
 * devcluster (kubectl on PATH), by the same steps: it stores every kind of the manifests, RBAC
 * objects and StatefulSets included, but runs no controller of them (README "Limits").
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DEPLOY = path.join(ROOT, 'config/deploy');
const NAMESPACE = 'vcluster-my-vc';
const HOST_ACCOUNT = `system:serviceaccount:${NAMESPACE}:vcsync`;

/** The files of config/deploy/ that are not Kubernetes objects, and what each is instead. */
const NOT_OBJECTS: Readonly<Record<string, string>> = {
  'vcluster-values.yaml': "Helm values of vcluster's chart (vcluster create -f)",
  'sidecar.yaml': "a strategic-merge patch of vcluster's StatefulSet (kubectl patch --patch-file)",
};

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, shape checked by the assertions

interface Manifest {
  file: string;
  /** Absolute path, as kubectl -f takes it. */
  path: string;
  docs: Doc[];
}

async function readDocs(file: string): Promise<Doc[]> {
  return parseAllDocuments(await readFile(path.join(DEPLOY, file), 'utf8')).map((d) => d.toJS() as Doc);
}

/** Every file of config/deploy/ that holds Kubernetes objects, in name order. */
async function manifests(): Promise<Manifest[]> {
  const files = (await readdir(DEPLOY)).filter((f) => f.endsWith('.yaml') && NOT_OBJECTS[f] === undefined).sort();
  return Promise.all(files.map(async (file) => ({ file, path: path.join(DEPLOY, file), docs: await readDocs(file) })));
}

/** `kind/name` as `kubectl -o name` prints it: lower-case kind, with the group for non-core kinds. */
function kubectlName(doc: Doc): string {
  const apiVersion = String(doc['apiVersion']);
  const group = apiVersion.includes('/') ? `.${apiVersion.split('/')[0]}` : '';
  return `${String(doc['kind']).toLowerCase()}${group}/${String(doc['metadata'].name)}`;
}

/**
 * A stand-in for the StatefulSet `vcluster create my-vc -n vcluster-my-vc` makes (its pod's
 * container is `syncer`): what sidecar.yaml patches. No replicas until patched, so that the one
 * pod the test scales to is made from the patched template; `syncer` meets Pod Security
 * "restricted", so that any violation the server reports is the sidecar's.
 */
const RESTRICTED = { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
const VCLUSTER_STATEFULSET = toYaml({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'my-vc', namespace: NAMESPACE },
  spec: {
    serviceName: 'my-vc-headless',
    replicas: 0,
    selector: { matchLabels: { app: 'vcluster', release: 'my-vc' } },
    template: {
      metadata: { labels: { app: 'vcluster', release: 'my-vc' } },
      spec: { serviceAccountName: 'vc-my-vc', containers: [{ name: 'syncer', image: 'ghcr.io/loft-sh/vcluster-pro:0.26.0', securityContext: RESTRICTED }] },
    },
  },
});

/** The management API's serving certificate, as an operator would bring it (README: `kubectl create secret tls`). */
async function managementTls(dir: string): Promise<TlsAssets> {
  return ensureTlsAssets(dir, { serverName: 'vcsync-management', hosts: [`my-vc.${NAMESPACE}.svc`] });
}

const createTlsSecret = (tls: TlsAssets): string[] => ['-n', NAMESPACE, 'create', 'secret', 'tls', 'vcsync-management-tls', `--cert=${tls.serverCertPath}`, `--key=${tls.serverKeyPath}`];

/*
 * The steps README "Deploy as a sidecar next to a vcluster" takes, the same on either server
 * (`env` is kubectl bound to it); what only a real cluster does (controllers, authorization) is
 * checked by the real server's part alone.
 */

/** Every manifest in a server-side dry run (every object "created"), then for real (every object there). */
async function applyEveryManifest(env: KubectlEnv): Promise<void> {
  for (const { file, path: manifest, docs } of await manifests()) {
    const dry = await env.ok(['apply', '--dry-run=server', '-f', manifest]);
    expect(dry.trim().split('\n'), file).toEqual(docs.map((d) => expect.stringMatching(new RegExp(`^${String(d['kind']).toLowerCase()}\\S*/${String(d['metadata'].name)} created \\(server dry run\\)$`))));
  }
  for (const { file, path: manifest, docs } of await manifests()) {
    await env.ok(['apply', '-f', manifest]);
    expect((await env.ok(['get', '-f', manifest, '-o', 'name'])).trim().split('\n'), file).toEqual(docs.map(kubectlName));
  }
}

/**
 * Creates the stand-in of vcluster's StatefulSet and patches it with sidecar.yaml: a server-side
 * dry run that changes nothing, then for real. Returns the patched StatefulSet.
 */
async function patchInSidecar(env: KubectlEnv): Promise<Doc> {
  await env.ok(['apply', '-f', '-'], VCLUSTER_STATEFULSET);
  const patch = ['-n', NAMESPACE, 'patch', 'statefulset', 'my-vc', '--patch-file', path.join(DEPLOY, 'sidecar.yaml')];
  expect(await env.ok([...patch, '--dry-run=server'])).toContain('statefulset.apps/my-vc patched');
  expect(await env.ok(['-n', NAMESPACE, 'get', 'statefulset', 'my-vc', '-o', 'jsonpath={.spec.template.spec.containers[*].name}'])).toBe('syncer');
  await env.ok(patch);
  return JSON.parse(await env.ok(['-n', NAMESPACE, 'get', 'statefulset', 'my-vc', '-o', 'json'])) as Doc;
}

/** A pod spec (the patched template's, or a pod's made of it) has vcsync next to syncer, hardened, with its volumes. */
function expectSidecarIn(podSpec: Doc): void {
  expect((podSpec['containers'] as Doc[]).map((c) => c['name']).sort()).toEqual(['syncer', 'vcsync']);
  const vcsync = (podSpec['containers'] as Doc[]).find((c) => c['name'] === 'vcsync') as Doc;
  expect(vcsync['securityContext']).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true });
  expect((podSpec['volumes'] as Doc[]).map((v) => v['name'])).toEqual(expect.arrayContaining(['vcsync-config', 'vcsync-virtual-kubeconfig', 'vcsync-host-token', 'vcsync-management-tls', 'vcsync-management']));
}

/** The management TLS Secret made with kubectl create secret tls: a dry run, then for real. */
async function storeManagementTls(env: KubectlEnv, dir: string): Promise<void> {
  const tls = await managementTls(path.join(dir, 'tls'));
  expect(await env.ok([...createTlsSecret(tls), '--dry-run=server'])).toContain('secret/vcsync-management-tls created (server dry run)');
  await env.ok(createTlsSecret(tls));
  expect(await env.ok(['-n', NAMESPACE, 'get', 'secret', 'vcsync-management-tls', '-o', 'jsonpath={.type}'])).toBe('kubernetes.io/tls');
}

describe('config/deploy/ holds manifests, Helm values and a patch', () => {
  it('every file is either Kubernetes objects (apiVersion, kind, name) or one of the known other things', async () => {
    for (const { file, docs } of await manifests()) {
      expect(docs.length, file).toBeGreaterThan(0);
      for (const doc of docs) expect(doc, file).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String), metadata: { name: expect.any(String) } });
    }
    const values = await readDocs('vcluster-values.yaml');
    expect(values).toHaveLength(1);
    expect(values[0]).not.toHaveProperty('kind');
    // Helm values of vcluster's chart are a vcluster.yaml: the check vcsync runs on one (every key
    // along the paths it reads is one of vcluster's) passes.
    const parsed = parseConfig(await readFile(path.join(DEPLOY, 'vcluster-values.yaml'), 'utf8'), 'vcluster-values.yaml', registryConfigSchema());
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    const patch = await readDocs('sidecar.yaml');
    expect(patch).toHaveLength(1);
    expect(patch[0]).not.toHaveProperty('kind');
    expect(patch[0]?.['spec']?.template?.spec?.containers?.[0]?.name).toBe('vcsync');
  });
});

describe.skipIf(realClusterMissing('config/deploy against the real kube-apiserver'))('config/deploy applied with kubectl to the real kube-apiserver', () => {
  let plane: RealControlPlane;
  let admin: KubectlEnv;
  let dir: string;
  const envs: KubectlEnv[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'deploy-real-'));
    // The token controller (kube-controller-manager) fills host-rbac.yaml's token Secret.
    plane = await startRealControlPlane({ controllers: true });
    // The kubectl of the server's release (built with it), so that this suite needs nothing but the assets.
    admin = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'deploy-real-admin-', binary: plane.assets.kubectl });
    envs.push(admin);
    await admin.ok(['create', 'namespace', NAMESPACE]);
  }, 240_000);
  afterAll(async () => {
    for (const env of envs) await env.remove();
    await plane?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('accepts every manifest in a server-side dry run, then creates every object', async () => {
    await applyEveryManifest(admin);
  });

  it("patches vcluster's StatefulSet with the sidecar (dry run, then for real), and the StatefulSet controller makes a pod of it", async () => {
    expectSidecarIn((await patchInSidecar(admin))['spec'].template.spec as Doc);
    await admin.ok(['-n', NAMESPACE, 'scale', 'statefulset', 'my-vc', '--replicas=1']);
    await admin.ok(['-n', NAMESPACE, 'wait', '--for=create', 'pod/my-vc-0', '--timeout=60s']);
    const pod = JSON.parse(await admin.ok(['-n', NAMESPACE, 'get', 'pod', 'my-vc-0', '-o', 'json'])) as Doc;
    expectSidecarIn(pod['spec'] as Doc);
    // Pod Security "restricted" (what a hardened host namespace enforces): a server-side dry run of
    // the label warns of every violation of the existing pod; the stand-in syncer has none.
    const audit = await admin.run(['label', '--dry-run=server', '--overwrite', 'namespace', NAMESPACE, 'pod-security.kubernetes.io/enforce=restricted']);
    expect(audit.code).toBe(0);
    expect(audit.stderr, 'warnings of the label dry run').not.toContain('violate');
  });

  it("fills vcsync's host token, which authenticates as the ServiceAccount vcsync with the Role's rights and no more", async () => {
    await admin.ok(['-n', NAMESPACE, 'wait', '--for=jsonpath={.data.token}', 'secret/vcsync-host-token', '--timeout=60s']);
    const token = Buffer.from(await admin.ok(['-n', NAMESPACE, 'get', 'secret', 'vcsync-host-token', '-o', 'jsonpath={.data.token}']), 'base64').toString('utf8');
    const asVcsync = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'vcsync', server: plane.url, caCertPem: plane.tls.caCertPem, token })), { prefix: 'deploy-real-vcsync-', binary: plane.assets.kubectl });
    envs.push(asVcsync);
    expect(await asVcsync.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).toBe(HOST_ACCOUNT);
    const can = async (...args: string[]): Promise<string> => (await asVcsync.run(['auth', 'can-i', ...args])).stdout.trim();
    for (const verb of ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']) expect(await can(verb, 'endpoints', '-n', NAMESPACE), `${verb} endpoints`).toBe('yes');
    for (const verb of ['get', 'create', 'update']) expect(await can(verb, 'leases.coordination.k8s.io', '-n', NAMESPACE), `${verb} leases`).toBe('yes');
    for (const verb of ['list', 'watch', 'delete']) expect(await can(verb, 'secrets', '-n', NAMESPACE), `${verb} secrets`).toBe('yes');
    expect(await can('get', 'pods', '-n', NAMESPACE)).toBe('no');
    expect(await can('delete', 'leases.coordination.k8s.io', '-n', NAMESPACE)).toBe('no');
    // Other namespaces: Endpoints only through the multi-namespace ClusterRole, Secrets never listed.
    expect(await can('create', 'endpoints', '-n', 'default')).toBe('yes');
    expect(await can('list', 'secrets', '-n', 'default')).toBe('no');
  });

  it('stores the management TLS Secret made with kubectl create secret tls (dry run, then for real)', async () => {
    await storeManagementTls(admin, dir);
  });
});

describe.skipIf(kubectlMissing('config/deploy against a devcluster'))('config/deploy applied with kubectl to a devcluster', () => {
  let cluster: DevCluster;
  let env: KubectlEnv;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'deploy-dev-'));
    cluster = await startDevCluster();
    env = await KubectlEnv.create(cluster, 'deploy-dev-');
    await env.ok(['create', 'namespace', NAMESPACE]);
  });
  afterAll(async () => {
    await cluster?.close();
    await env?.remove();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('serves every kind of the manifests, the RBAC kinds and StatefulSets included', async () => {
    const served = (await env.ok(['api-resources', '-o', 'name'])).trim().split('\n');
    const plurals = ['roles.rbac.authorization.k8s.io', 'rolebindings.rbac.authorization.k8s.io', 'clusterroles.rbac.authorization.k8s.io', 'clusterrolebindings.rbac.authorization.k8s.io', 'statefulsets.apps'];
    expect(served).toEqual(expect.arrayContaining([...plurals, 'namespaces', 'secrets', 'serviceaccounts']));
  });

  it('accepts every manifest in a server-side dry run, then creates every object', async () => {
    await applyEveryManifest(env);
  });

  it("patches vcluster's StatefulSet with the sidecar (dry run, then for real); no controller makes a pod of it", async () => {
    const patched = await patchInSidecar(env);
    expectSidecarIn(patched['spec'].template.spec as Doc);
    expect(patched['metadata'].generation).toBe(2);
    expect(await env.ok(['-n', NAMESPACE, 'get', 'pods', '-o', 'name'])).toBe('');
  });

  it('stores the management TLS Secret made with kubectl create secret tls (dry run, then for real)', async () => {
    await storeManagementTls(env, dir);
  });
});
