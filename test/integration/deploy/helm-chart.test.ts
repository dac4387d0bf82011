import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { parseConfig } from '../../../src/config/index.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { mergeRbacRules } from '../../../tools/generate/rbac-rules.js';
import { helmMissing, runHelm, type HelmResult } from '../../support/helm.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { KubectlEnv } from '../../support/kubectl.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';

/**
 * charts/vcsync: helm lint, what helm template renders (default values, every option, the
 * virtual side), what values.schema.json refuses, and the rendered manifests on the real
 * kube-apiserver: a server-side dry run, a kubectl apply, a helm install, and what the server
 * stored and its controllers made of it.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const CHART = path.join(ROOT, 'charts/vcsync');
const EVERY_OPTION = path.join(import.meta.dirname, 'fixtures/helm-every-option.yaml');
const NAMESPACE = 'vcluster-my-vc';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, shape checked by the assertions

let helmHome: string;
beforeAll(async () => {
  helmHome = await mkdtemp(path.join(tmpdir(), 'helm-chart-'));
});
afterAll(async () => {
  if (helmHome !== undefined) await rm(helmHome, { recursive: true, force: true });
});

/** Runs helm; a non-zero exit fails with its stderr. Returns stdout. */
async function helmOk(args: readonly string[]): Promise<string> {
  const result = await runHelm(args, helmHome);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

/** `helm template vcsync charts/vcsync -n vcluster-my-vc ARGS`. */
async function template(...args: string[]): Promise<string> {
  return helmOk(['template', 'vcsync', CHART, '--namespace', NAMESPACE, ...args]);
}

/** The objects of a rendered manifest stream. */
function objects(yaml: string): Doc[] {
  return parseAllDocuments(yaml)
    .map((document) => document.toJS() as Doc | null)
    .filter((doc): doc is Doc => doc !== null);
}

function find(docs: Doc[], kind: string): Doc {
  const found = docs.filter((doc) => doc['kind'] === kind);
  expect(found.map((doc) => `${kind}/${String(doc['metadata']?.name)}`), `one ${kind}`).toHaveLength(1);
  return found[0] as Doc;
}

/** The rules of the (first) Role or ClusterRole of a file of config/deploy/. */
async function deployRules(file: string, kind: 'Role' | 'ClusterRole'): Promise<unknown> {
  const docs = objects(await readFile(path.join(ROOT, 'config/deploy', file), 'utf8'));
  return docs.find((doc) => doc['kind'] === kind)?.['rules'];
}

/** The registry's rules for one side, as the generated block of a Role lists them. */
const registryRules = (side: 'host' | 'virtual'): unknown[] => mergeRbacRules(SYNCABLE_RESOURCES.flatMap((resource) => resource.rbac[side]));

async function alertGroups(): Promise<unknown> {
  return (parseYaml(await readFile(path.join(ROOT, 'config/monitoring/vcsync-alerts.yaml'), 'utf8')) as Doc)['groups'];
}

function expectRefused(result: HelmResult, ...patterns: RegExp[]): void {
  expect(result.code, result.stdout).not.toBe(0);
  for (const pattern of patterns) expect(result.stderr).toMatch(pattern);
}

describe.skipIf(helmMissing('charts/vcsync with helm'))('charts/vcsync with helm', () => {
  it('passes helm lint, with --strict, on its default values, on every option and on the virtual side', async () => {
    for (const extra of [[], ['--strict'], ['--strict', '-f', EVERY_OPTION], ['--strict', '--set', 'target=virtual']]) {
      expect(await helmOk(['lint', CHART, ...extra]), extra.join(' ')).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it('renders vcsync beside the vcluster from the default values: a hardened Deployment of the image, its own ServiceAccount and RBAC, config, Service, PDB', async () => {
    const docs = objects(await template('--set', 'vcluster.name=my-vc'));
    expect(docs.map((doc) => `${String(doc['kind'])}/${String(doc['metadata'].name)}`).sort()).toEqual(
      ['Deployment/vcsync', 'PodDisruptionBudget/vcsync', 'Role/vcsync', 'RoleBinding/vcsync', 'Secret/vcsync-config', 'Service/vcsync', 'ServiceAccount/vcsync'].sort(),
    );
    for (const doc of docs) expect(doc['metadata'].namespace, `${String(doc['kind'])} namespace`).toBe(NAMESPACE);

    const deployment = find(docs, 'Deployment');
    expect(deployment['spec'].replicas).toBe(2);
    const pod = deployment['spec'].template.spec as Doc;
    expect(pod['serviceAccountName']).toBe('vcsync');
    expect(pod['securityContext']).toEqual({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const container = pod['containers'][0] as Doc;
    expect(container['image']).toBe('ghcr.io/example/vcsync:0.1.0');
    expect(container['command']).toBeUndefined(); // the image's entrypoint: node on the CLI
    expect(container['args']).toEqual([
      'start',
      '--config=/etc/vcsync/vcluster.yaml',
      '--name=my-vc',
      '--virtual-kubeconfig=/var/run/vcsync/virtual/config',
      '--listen-metrics=0.0.0.0:9180',
      '--log-level=info',
      '--workers=10',
      '--host-qps=40',
      '--host-burst=80',
      '--sandbox-memory-mib=32',
      '--sandbox-timeout-ms=50',
      '--leader-elect-lease-duration-ms=15000',
      '--leader-elect-renew-deadline-ms=10000',
      '--leader-elect-retry-period-ms=2000',
    ]);
    expect(container['securityContext']).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container['readinessProbe'].httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(container['livenessProbe'].httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(container['ports']).toEqual([{ name: 'metrics', containerPort: 9180 }]);
    expect(pod['volumes']).toEqual([
      { name: 'config', secret: { secretName: 'vcsync-config', items: [{ key: 'config.yaml', path: 'vcluster.yaml' }] } },
      { name: 'virtual-kubeconfig', secret: { secretName: 'vcsync-kubeconfig-my-vc', items: [{ key: 'config', path: 'config' }] } },
    ]);

    expect(find(docs, 'Role')['rules']).toEqual(await deployRules('host-rbac.yaml', 'Role'));
    expect((find(docs, 'Role')['rules'] as unknown[]).slice(0, registryRules('host').length)).toEqual(registryRules('host'));
    expect(find(docs, 'RoleBinding')['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'vcsync', namespace: NAMESPACE }]);

    const config = find(docs, 'Secret')['stringData']['config.yaml'] as string;
    const parsed = parseConfig(config, 'config.yaml', registryConfigSchema());
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    expect(parseYaml(config)).toEqual((parseYaml(await readFile(path.join(CHART, 'values.yaml'), 'utf8')) as Doc)['config']);

    expect(find(docs, 'Service')['spec'].ports).toEqual([{ name: 'metrics', port: 9180, targetPort: 'metrics' }]);
    expect(find(docs, 'PodDisruptionBudget')['spec']).toEqual({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'vcsync', 'app.kubernetes.io/instance': 'vcsync' } } });
  });

  it('renders every option: image by digest, management TLS, monitoring from config/monitoring, multi-namespace RBAC', async () => {
    const docs = objects(await template('-f', EVERY_OPTION));
    expect(docs.map((doc) => String(doc['kind'])).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'PodDisruptionBudget', 'PrometheusRule', 'Role', 'RoleBinding', 'Secret', 'Service', 'ServiceAccount', 'ServiceMonitor'].sort(),
    );
    const pod = find(docs, 'Deployment')['spec'].template.spec as Doc;
    const container = pod['containers'][0] as Doc;
    expect(container['image']).toBe('registry.example.com/platform/vcsync@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
    expect(container['args']).toEqual(
      expect.arrayContaining([
        '--name=my-vc',
        '--listen-metrics=0.0.0.0:9190',
        '--leader-elect-lease-duration-ms=20000',
        '--listen-management=0.0.0.0:9443',
        '--management-tls-cert=/var/run/vcsync/management-tls/tls.crt',
        '--management-tls-key=/var/run/vcsync/management-tls/tls.key',
        '--management-admin-key-file=/var/run/vcsync/management/admin.key',
        '--management-token-issuer=https://vcsync.example.com',
        '--management-max-watches=500',
      ]),
    );
    expect(pod['serviceAccountName']).toBe('vcsync-host');
    expect(pod['imagePullSecrets']).toEqual([{ name: 'registry-credentials' }]);
    expect((pod['volumes'] as Doc[]).map((volume) => volume['name'])).toEqual(['config', 'virtual-kubeconfig', 'management-tls', 'management']);
    expect((pod['volumes'] as Doc[])[1]?.['secret']).toEqual({ secretName: 'vc-my-vc', items: [{ key: 'config', path: 'config' }] });
    expect(find(docs, 'Service')['spec'].ports).toContainEqual({ name: 'management', port: 8443, targetPort: 'management' });
    expect(find(docs, 'PrometheusRule')['spec'].groups).toEqual(await alertGroups());
    expect(find(docs, 'PrometheusRule')['metadata'].labels.release).toBe('prometheus');
    expect(find(docs, 'ServiceMonitor')['spec'].endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s', scrapeTimeout: '5s' }]);
    expect(find(docs, 'ClusterRole')['rules']).toEqual(await deployRules('host-clusterrole-multi-namespace.yaml', 'ClusterRole'));
    expect(find(docs, 'ClusterRoleBinding')['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'vcsync-host', namespace: NAMESPACE }]);
    const config = find(docs, 'Secret')['stringData']['config.yaml'] as string;
    const parsed = parseConfig(config, 'config.yaml', registryConfigSchema());
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  });

  it('renders only the ServiceAccount and ClusterRole vcsync uses inside the virtual cluster for target=virtual', async () => {
    const docs = objects(await template('--set', 'target=virtual'));
    expect(docs.map((doc) => `${String(doc['kind'])}/${String(doc['metadata'].name)}`)).toEqual(['ServiceAccount/vcsync', 'ClusterRole/vcsync', 'ClusterRoleBinding/vcsync']);
    expect(find(docs, 'ServiceAccount')['metadata'].namespace).toBe('kube-system');
    expect(find(docs, 'ClusterRole')['rules']).toEqual(await deployRules('virtual-rbac.yaml', 'ClusterRole'));
    expect((find(docs, 'ClusterRole')['rules'] as unknown[]).slice(0, registryRules('virtual').length)).toEqual(registryRules('virtual'));
  });

  it('refuses bad values with what was wrong and where: the schema, and the checks across values', async () => {
    const render = (...args: string[]): Promise<HelmResult> => runHelm(['template', 'vcsync', CHART, '--set', 'vcluster.name=my-vc', ...args], helmHome);
    expectRefused(await runHelm(['template', 'vcsync', CHART], helmHome), /vcluster\.name is empty: set it to the name of the virtual cluster/);
    expectRefused(await render('--set', 'replicas=0'), /values don't meet the specifications of the schema/, /at '\/replicas': minimum: got 0, want 1/);
    expectRefused(await render('--set', 'target=both'), /at '\/target': value must be one of 'host', 'virtual'/);
    expectRefused(await render('--set', 'replica=2'), /additional properties 'replica' not allowed/);
    expectRefused(await render('--set', 'image.digest=latest'), /at '\/image\/digest': 'latest' does not match pattern/);
    expectRefused(await render('--set', 'vcluster.name=My_VC'), /at '\/vcluster\/name': 'My_VC' does not match pattern/);
    expectRefused(await render('--set', 'leaderElection.enabled=false'), /replicas is 2 with leaderElection\.enabled false: .* set leaderElection\.enabled=true or replicas=1/);
    expectRefused(await render('--set', 'management.enabled=true'), /management\.tls\.secretName is empty: create a kubernetes\.io\/tls Secret/);
    expect((await render('--set', 'leaderElection.enabled=false', '--set', 'replicas=1')).code).toBe(0);
  });
});

/** Stand-ins for prometheus-operator's CRDs (the server then stores ServiceMonitors and PrometheusRules). */
const MONITORING_CRDS = ['servicemonitors:ServiceMonitor', 'prometheusrules:PrometheusRule']
  .map((pair) => {
    const [plural, kind] = pair.split(':') as [string, string];
    return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.monitoring.coreos.com }
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: { plural: ${plural}, kind: ${kind} }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
  })
  .join('---\n');

describe.skipIf(helmMissing('charts/vcsync on the real kube-apiserver') || realClusterMissing('charts/vcsync on the real kube-apiserver'))('charts/vcsync on the real kube-apiserver', () => {
  let plane: RealControlPlane;
  let admin: KubectlEnv;
  const OTHER = 'vcluster-other';

  beforeAll(async () => {
    // kube-controller-manager makes ReplicaSets and pods of the Deployments: the pod spec is admitted.
    plane = await startRealControlPlane({ controllers: true });
    admin = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'helm-chart-real-', binary: plane.assets.kubectl });
    for (const namespace of [NAMESPACE, OTHER]) await admin.ok(['create', 'namespace', namespace]);
    await admin.ok(['apply', '-f', '-'], MONITORING_CRDS);
    await admin.ok(['wait', '--for=condition=Established', 'crd/servicemonitors.monitoring.coreos.com', 'crd/prometheusrules.monitoring.coreos.com', '--timeout=60s']);
  }, 240_000);
  afterAll(async () => {
    await admin?.remove();
    await plane?.close();
  });

  const helmOnPlane = (args: string[]): Promise<string> => helmOk([...args, '--kubeconfig', plane.kubeconfigPath]);

  it('accepts what helm template renders (default values, every option) in a server-side dry run, then kubectl apply creates it', async () => {
    for (const args of [['--set', 'vcluster.name=my-vc'], ['-f', EVERY_OPTION]]) {
      const rendered = await template(...args);
      const docs = objects(rendered);
      const dry = await admin.ok(['apply', '--dry-run=server', '-f', '-'], rendered);
      expect(dry.trim().split('\n'), args.join(' ')).toEqual(docs.map((doc) => expect.stringMatching(new RegExp(`^${String(doc['kind']).toLowerCase()}\\S*/${String(doc['metadata'].name)} created \\(server dry run\\)$`))));
    }
    await admin.ok(['apply', '-f', '-'], await template('--set', 'vcluster.name=my-vc'));
    const stored = JSON.parse(await admin.ok(['-n', NAMESPACE, 'get', 'deployment', 'vcsync', '-o', 'json'])) as Doc;
    expect(stored['spec'].template.spec.containers[0].securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(JSON.parse(await admin.ok(['-n', NAMESPACE, 'get', 'role', 'vcsync', '-o', 'json']))['rules']).toEqual(await deployRules('host-rbac.yaml', 'Role'));
  });

  it('installs with helm (every option); the server stores the RBAC the registry gives and its controllers make the pods, which meet Pod Security "restricted"', async () => {
    expect(await helmOnPlane(['install', 'vcsync', CHART, '--namespace', OTHER, '-f', EVERY_OPTION])).toContain('STATUS: deployed');
    const role = JSON.parse(await admin.ok(['-n', OTHER, 'get', 'role', 'vcsync', '-o', 'json'])) as Doc;
    expect((role['rules'] as unknown[]).slice(0, registryRules('host').length)).toEqual(registryRules('host'));
    const clusterRole = JSON.parse(await admin.ok(['get', 'clusterrole', `vcsync-${OTHER}`, '-o', 'json'])) as Doc;
    expect((clusterRole['rules'] as unknown[]).slice(0, registryRules('host').length)).toEqual(registryRules('host'));
    const rule = JSON.parse(await admin.ok(['-n', OTHER, 'get', 'prometheusrule', 'vcsync', '-o', 'json'])) as Doc;
    expect(rule['spec'].groups).toEqual(await alertGroups());

    const account = `system:serviceaccount:${OTHER}:vcsync-host`;
    const can = async (...args: string[]): Promise<string> => (await admin.run(['auth', 'can-i', '--as', account, ...args])).stdout.trim();
    expect(await can('create', 'endpointslices.discovery.k8s.io', '-n', OTHER)).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io', '-n', OTHER)).toBe('yes');
    expect(await can('create', 'endpoints', '-n', 'host-team-a')).toBe('yes'); // multi-namespace mode: cluster-wide
    expect(await can('list', 'secrets', '-n', 'host-team-a')).toBe('no');
    expect(await can('get', 'pods', '-n', OTHER)).toBe('no');

    await admin.ok(['-n', OTHER, 'wait', '--for=jsonpath={.status.replicas}=3', 'deployment/vcsync', '--timeout=60s']);
    const pods = JSON.parse(await admin.ok(['-n', OTHER, 'get', 'pods', '-l', 'app.kubernetes.io/instance=vcsync', '-o', 'json'])) as Doc;
    expect(pods['items']).toHaveLength(3);
    // A server-side dry run of the label warns of every violation of the existing pods.
    const audit = await admin.run(['label', '--dry-run=server', '--overwrite', 'namespace', OTHER, 'pod-security.kubernetes.io/enforce=restricted']);
    expect(audit.code).toBe(0);
    expect(audit.stderr, 'warnings of the label dry run').not.toContain('violate');
    expect(await helmOnPlane(['list', '--namespace', OTHER, '-o', 'json'])).toContain('"status":"deployed"');
  });

  it('installs the virtual side (target=virtual): the ServiceAccount may read and write back what vcsync syncs, nothing more', async () => {
    expect(await helmOnPlane(['install', 'vcsync-rbac', CHART, '--namespace', 'kube-system', '--set', 'target=virtual'])).toContain('STATUS: deployed');
    const clusterRole = JSON.parse(await admin.ok(['get', 'clusterrole', 'vcsync', '-o', 'json'])) as Doc;
    expect(clusterRole['rules']).toEqual(await deployRules('virtual-rbac.yaml', 'ClusterRole'));
    const can = async (...args: string[]): Promise<string> => (await admin.run(['auth', 'can-i', '--as', 'system:serviceaccount:kube-system:vcsync', ...args])).stdout.trim();
    expect(await can('watch', 'endpointslices.discovery.k8s.io', '--all-namespaces')).toBe('yes');
    expect(await can('patch', 'endpoints', '-n', 'default')).toBe('yes');
    expect(await can('create', 'events', '-n', 'default')).toBe('yes');
    expect(await can('delete', 'endpoints', '-n', 'default')).toBe('no');
    expect(await can('list', 'secrets', '-n', 'default')).toBe('no');
  });
});
