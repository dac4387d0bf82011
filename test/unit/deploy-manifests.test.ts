import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { registerStartCommand } from '../../src/cli/start-command.js';
import { parseConfig } from '../../src/config/index.js';
import { HealthChecks } from '../../src/observe/health.js';
import { silentLogger } from '../../src/observe/logger.js';
import { startMetricsServer, type MetricsServer } from '../../src/observe/metrics-server.js';
import { registryConfigSchema } from '../../src/syncer/resources.js';
import { sectionConfig } from '../../src/config/config-section.js';
import { endpointsConfigSection } from '../../src/syncer/endpoints/config-section.js';

/**
 * The deployment files in config/deploy/ and the Dockerfile must agree with each other and with
 * the daemon: these tests read them as a kubelet and an operator would.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML, shape checked by the assertions

function docs(file: string): Doc[] {
  return parseAllDocuments(readFileSync(path.join(ROOT, 'config/deploy', file), 'utf8')).map((d) => d.toJS() as Doc);
}

function only(file: string, kind: string, name?: string): Doc {
  const found = docs(file).filter((d) => d['kind'] === kind && (name === undefined || d['metadata']?.name === name));
  expect(found, `${file}: one ${kind}${name !== undefined ? ` ${name}` : ''}`).toHaveLength(1);
  return found[0] as Doc;
}

const podSpec = (): Doc => (docs('sidecar.yaml')[0] as Doc)['spec']['template']['spec'];
const container = (): Doc => (podSpec()['containers'] as Doc[]).find((c) => c['name'] === 'vcsync') as Doc;
const env = (name: string): Doc | undefined => (container()['env'] as Doc[]).find((e) => e['name'] === name);
const volume = (name: string): Doc => (podSpec()['volumes'] as Doc[]).find((v) => v['name'] === name) as Doc;

/** The file a path inside the container comes from: the mount holding it, its volume, and the volume item. */
function sourceOf(file: string): { volume: Doc; key: string | undefined } {
  const mounts = (container()['volumeMounts'] as Doc[]).filter((m) => file.startsWith(`${m['mountPath']}/`));
  expect(mounts, `a volume mounted over ${file}`).toHaveLength(1);
  const mount = mounts[0] as Doc;
  expect(mount['subPath'], `${file} must not be a subPath mount (it would never update)`).toBeUndefined();
  const relative = file.slice(String(mount['mountPath']).length + 1);
  const source = volume(String(mount['name']));
  const items: Doc[] = source['secret']?.items ?? source['configMap']?.items ?? [];
  return { volume: source, key: items.find((i) => i['path'] === relative)?.['key'] };
}

/** The default of a `vcsync start` option, read from the command itself. */
function startDefault(flag: string): unknown {
  const program = new Command();
  registerStartCommand(program);
  const start = program.commands.find((c) => c.name() === 'start');
  return start?.options.find((o) => o.long === flag)?.defaultValue;
}

describe('deployment manifests (config/deploy, Dockerfile)', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('run the image as a numeric non-root user, the same uid/gid in the Dockerfile and the manifest', () => {
    const users = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => /^USER\s/.test(line))
      .map((line) => line.replace(/^USER\s+/, '').trim());
    const finalUser = users.at(-1) ?? '';
    expect(finalUser).toMatch(/^\d+:\d+$/);
    const [uid, gid] = finalUser.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    const security = container()['securityContext'] as Doc;
    expect(security).toMatchObject({ runAsNonRoot: true, runAsUser: uid, runAsGroup: gid, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  });

  it("start the CLI from Node's snapshot in the image (only the sandbox's workers need --no-node-snapshot, and get it when forked)", () => {
    const entrypoints = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => /^ENTRYPOINT\s/.test(line));
    const entrypoint = JSON.parse((entrypoints.at(-1) ?? '').replace(/^ENTRYPOINT\s+/, '')) as string[];
    expect(entrypoint).toEqual(['node', '/app/dist/cli/main.js']);
  });

  it('build both stages on one pinned Node release, send only what the build copies, and leave health to the probes', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split('\n');
    const version = dockerfile.find((line) => /^ARG NODE_VERSION=/.test(line))?.replace(/^ARG NODE_VERSION=/, '');
    expect(version, 'ARG NODE_VERSION=<major.minor.patch>').toMatch(/^\d+\.\d+\.\d+$/);
    const bases = dockerfile.filter((line) => /^FROM\s/.test(line)).map((line) => line.split(/\s+/)[1]);
    expect(bases).toEqual(['node:${NODE_VERSION}-bookworm-slim', 'node:${NODE_VERSION}-bookworm-slim']);
    expect(dockerfile.filter((line) => /^HEALTHCHECK\s/.test(line)), 'Kubernetes ignores HEALTHCHECK; the probes do it').toEqual([]);
    const exposed = dockerfile.filter((line) => /^EXPOSE\s/.test(line)).flatMap((line) => line.replace(/^EXPOSE\s+/, '').split(/\s+/)).map(Number);
    expect(exposed.sort()).toEqual((container()['ports'] as Doc[]).map((p) => p['containerPort']).sort());

    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    const copied = dockerfile.filter((line) => /^COPY\s/.test(line) && !line.includes('--from=')).flatMap((line) => line.replace(/^COPY\s+/, '').split(/\s+/).slice(0, -1));
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) expect(ignored, `${source} is copied, so .dockerignore must not exclude it`).not.toContain(source);
  });

  it("mount the key config.yaml of vcsync's config Secret at the path vcsync reads, without subPath", () => {
    const configPath = env('VCSYNC_CONFIG')?.['value'] ?? startDefault('--config');
    expect(configPath).toBe(startDefault('--config'));
    const { volume: source, key } = sourceOf(String(configPath));
    expect(key).toBe('config.yaml');
    const secret = only('vcsync-config.yaml', 'Secret');
    expect(source['secret']?.secretName).toBe(secret['metadata'].name);
    const parsed = parseConfig(String(secret['stringData']['config.yaml']), 'config.yaml', registryConfigSchema());
    if (!parsed.ok) throw new Error(`vcsync-config.yaml does not validate: ${JSON.stringify(parsed.errors)}`);
    expect(sectionConfig(parsed.config, endpointsConfigSection).enabled).toBe(true);
  });

  it("turn vcluster's own Endpoints and EndpointSlices sync off, place objects the same way, and export vcsync's virtual kubeconfig", () => {
    const values = docs('vcluster-values.yaml')[0] as Doc;
    expect(values['sync'].toHost.endpoints.enabled).toBe(false);
    expect(values['sync'].toHost.endpointSlices.enabled).toBe(false);
    const ours = parseConfig(String(only('vcsync-config.yaml', 'Secret')['stringData']['config.yaml']), 'config.yaml', registryConfigSchema());
    if (!ours.ok) throw new Error('vcsync-config.yaml does not validate');
    expect(values['sync'].toHost.namespaces.enabled).toBe(ours.config.sync.toHost.namespaces.enabled);

    const virtualKubeconfig = String(env('VCSYNC_VIRTUAL_KUBECONFIG')?.['value']);
    const { volume: source, key } = sourceOf(virtualKubeconfig);
    expect(key).toBe('config'); // the key vcluster writes its kubeconfig Secrets with
    const exported = (values['exportKubeConfig'].additionalSecrets as Doc[]).find((s) => s['name'] === source['secret']?.secretName);
    expect(exported, 'vcluster exports the Secret the sidecar mounts').toBeDefined();
    const account = only('virtual-rbac.yaml', 'ServiceAccount');
    expect(exported?.['serviceAccount']).toEqual({ name: account['metadata'].name, namespace: account['metadata'].namespace, clusterRole: only('virtual-rbac.yaml', 'ClusterRole')['metadata'].name });
  });

  it("give the sidecar the host ServiceAccount vcsync's token, bound to the Role (and the multi-namespace ClusterRole)", () => {
    expect(env('VCSYNC_HOST_KUBECONFIG'), 'in-cluster credentials: the projected token').toBeUndefined();
    const mount = (container()['volumeMounts'] as Doc[]).find((m) => m['mountPath'] === SERVICE_ACCOUNT_DIR);
    const sources = volume(String(mount?.['name']))['projected'].sources as Doc[];
    const tokenSecret = only('host-rbac.yaml', 'Secret');
    expect(tokenSecret['type']).toBe('kubernetes.io/service-account-token');
    expect(sources).toEqual([{ secret: { name: tokenSecret['metadata'].name, items: ['token', 'ca.crt', 'namespace'].map((k) => ({ key: k, path: k })) } }]);

    const account = only('host-rbac.yaml', 'ServiceAccount');
    expect(tokenSecret['metadata'].annotations['kubernetes.io/service-account.name']).toBe(account['metadata'].name);
    const subject = { kind: 'ServiceAccount', name: account['metadata'].name, namespace: account['metadata'].namespace };
    const role = only('host-rbac.yaml', 'Role');
    expect(only('host-rbac.yaml', 'RoleBinding')).toMatchObject({ roleRef: { kind: 'Role', name: role['metadata'].name }, subjects: [subject] });
    const rules = role['rules'] as Doc[];
    expect(rules).toContainEqual({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] });
    // The management API's store lists and watches its Secrets, and deletes them with their objects.
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] });
    const clusterRole = only('host-clusterrole-multi-namespace.yaml', 'ClusterRole');
    expect(only('host-clusterrole-multi-namespace.yaml', 'ClusterRoleBinding')).toMatchObject({ roleRef: { kind: 'ClusterRole', name: clusterRole['metadata'].name }, subjects: [subject] });
    expect(clusterRole['rules'][0]).toEqual({ apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] });
  });

  it('serve the management API on a container port, TLS from a mounted Secret, the admin key on a writable volume', () => {
    const listen = String(env('VCSYNC_LISTEN_MANAGEMENT')?.['value']);
    expect((container()['ports'] as Doc[]).find((p) => p['containerPort'] === Number(listen.split(':').at(-1))), `a container port for ${listen}`).toBeDefined();
    for (const [name, key] of [['VCSYNC_MANAGEMENT_TLS_CERT', 'tls.crt'], ['VCSYNC_MANAGEMENT_TLS_KEY', 'tls.key']] as const) {
      expect(sourceOf(String(env(name)?.['value'])).key, name).toBe(key);
    }
    const adminKey = String(env('VCSYNC_MANAGEMENT_ADMIN_KEY_FILE')?.['value']);
    const mount = (container()['volumeMounts'] as Doc[]).find((m) => adminKey.startsWith(`${m['mountPath']}/`));
    expect(mount?.['readOnly'], 'the admin key directory is writable (the root filesystem is not)').toBeUndefined();
    expect(volume(String(mount?.['name']))['emptyDir']).toBeDefined();
  });

  it('point the probes at paths the metrics server answers, readiness unaffected by failing sync health', async () => {
    const listen = String(env('VCSYNC_LISTEN_METRICS')?.['value']);
    const port = (container()['ports'] as Doc[]).find((p) => p['containerPort'] === Number(listen.split(':').at(-1)));
    expect(port, `a container port for ${listen}`).toBeDefined();
    const readiness = container()['readinessProbe'].httpGet as Doc;
    const liveness = container()['livenessProbe'].httpGet as Doc;
    expect([readiness['port'], liveness['port']]).toEqual([port?.['name'], port?.['name']]);

    const health = new HealthChecks();
    health.add({ name: 'config', check: () => ({ ready: true }) });
    health.addSync({ name: 'informers', check: () => ({ ready: false, reason: 'lost the API server' }) });
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry: new Registry(), health, logger: silentLogger() });
    expect((await fetch(`${server.url}${String(readiness['path'])}`)).status).toBe(200);
    expect((await fetch(`${server.url}${String(liveness['path'])}`)).status).toBe(200);
  });
});
