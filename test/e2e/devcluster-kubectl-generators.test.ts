import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';

const missing = kubectlMissing('kubectl generator e2e tests');

const PROTOBUF_REQUEST = /Content-Type: application\/vnd\.kubernetes\.protobuf/;

/**
 * Runs a generator command with `-v=8` and checks that kubectl really sent its body as protobuf
 * (so the test covers the decoder, not a JSON fallback). Returns stdout.
 */
async function generate(env: KubectlEnv, args: string[]): Promise<string> {
  const result = await env.run([...args, '-v=8']);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  expect(result.stderr).toMatch(PROTOBUF_REQUEST);
  return result.stdout;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

describe.skipIf(missing)('kubectl 1.32 generator commands (protobuf bodies) against the devcluster', () => {
  let cluster: DevCluster;
  let env: KubectlEnv;

  beforeAll(async () => {
    cluster = await startDevCluster();
  });
  beforeEach(async () => {
    env = await KubectlEnv.create(cluster);
  });
  afterEach(async () => {
    await env.remove();
  });
  afterAll(async () => {
    await cluster.close();
  });

  it('kubectl create namespace', async () => {
    expect(await generate(env, ['create', 'namespace', 'team-a'])).toBe('namespace/team-a created\n');
    expect(await env.ok(['get', 'namespace', 'team-a', '-o', 'jsonpath={.status.phase}'])).toBe('Active');
    const again = await env.run(['create', 'namespace', 'team-a']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('(AlreadyExists): namespaces "team-a" already exists');
  });

  it('kubectl create configmap --from-literal', async () => {
    expect(await generate(env, ['create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=greeting=hello world'])).toBe('configmap/settings created\n');
    const object = JSON.parse(await env.ok(['get', 'configmap', 'settings', '-o', 'json'])) as { metadata: { namespace: string }; data: Record<string, string> };
    expect(object.metadata.namespace).toBe('default');
    expect(object.data).toStrictEqual({ mode: 'fast', greeting: 'hello world' });
  });

  it('kubectl create configmap --dry-run=server stores nothing', async () => {
    const dry = JSON.parse(await generate(env, ['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server', '-o', 'json'])) as { data: Record<string, string> };
    expect(dry.data).toStrictEqual({ a: 'b' });
    const read = await env.run(['get', 'configmap', 'dry']);
    expect(read.code).not.toBe(0);
    expect(read.stderr).toContain('NotFound');
  });

  it('kubectl create secret generic --from-literal: values round-trip as base64', async () => {
    const password = 's3cr=t! ünïcödé';
    expect(await generate(env, ['create', 'secret', 'generic', 'creds', '--from-literal=user=admin', `--from-literal=password=${password}`])).toBe('secret/creds created\n');
    expect(await env.ok(['get', 'secret', 'creds', '-o', 'jsonpath={.data.password}'])).toBe(base64(password));
    expect(await env.ok(['get', 'secret', 'creds', '-o', 'jsonpath={.data.user}'])).toBe(base64('admin'));
    expect(await env.ok(['get', 'secret', 'creds', '-o', 'jsonpath={.type}'])).toBe('Opaque');
  });

  it('kubectl create secret docker-registry', async () => {
    await generate(env, ['create', 'secret', 'docker-registry', 'pull', '--docker-server=registry.example', '--docker-username=u', '--docker-password=p']);
    expect(await env.ok(['get', 'secret', 'pull', '-o', 'jsonpath={.type}'])).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(await env.ok(['get', 'secret', 'pull', '-o', 'jsonpath={.data.\\.dockerconfigjson}']), 'base64').toString('utf8')) as unknown;
    expect(config).toMatchObject({ auths: { 'registry.example': { username: 'u', password: 'p' } } });
  });

  it('kubectl create serviceaccount', async () => {
    expect(await generate(env, ['create', 'serviceaccount', 'builder', '-n', 'default'])).toBe('serviceaccount/builder created\n');
    expect(await env.ok(['get', 'serviceaccount', 'builder', '-o', 'name'])).toBe('serviceaccount/builder\n');
  });

  it('kubectl create service clusterip --tcp=80:8080', async () => {
    expect(await generate(env, ['create', 'service', 'clusterip', 'web', '--tcp=80:8080'])).toBe('service/web created\n');
    const service = JSON.parse(await env.ok(['get', 'service', 'web', '-o', 'json'])) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(service.metadata.labels).toStrictEqual({ app: 'web' });
    expect(service.spec).toMatchObject({ type: 'ClusterIP', selector: { app: 'web' }, ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }] });
    expect(service.spec['clusterIP']).toMatch(/^10\.\d+\.\d+\.\d+$/);
    await generate(env, ['create', 'service', 'clusterip', 'headless', '--clusterip=None']);
    expect(await env.ok(['get', 'service', 'headless', '-o', 'jsonpath={.spec.clusterIP}'])).toBe('None');
  });
});
