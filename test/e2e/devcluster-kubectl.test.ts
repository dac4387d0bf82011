import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { waitFor } from '../support/wait-for.js';

const missing = kubectlMissing('kubectl e2e tests');

/** Creates a ConfigMap with `kubectl create -f` (kubectl's generators send protobuf bodies). */
async function createConfigMap(env: KubectlEnv, name: string, data: Record<string, string> = {}): Promise<void> {
  const path = await env.file(`${name}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }));
  await env.ok(['create', '-f', path]);
}

const ENDPOINTS_YAML = `apiVersion: v1
kind: Endpoints
metadata:
  name: web
  labels:
    app: web
subsets:
- addresses:
  - ip: 10.0.0.1
  ports:
  - name: http
    port: 80
`;

describe.skipIf(missing)('kubectl 1.32 against a plain-HTTP devcluster', () => {
  let cluster: DevCluster;
  let env: KubectlEnv;
  const children: ChildProcessWithoutNullStreams[] = [];
  beforeAll(async () => {
    cluster = await startDevCluster();
    env = await KubectlEnv.create(cluster);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await cluster.close();
    await env.remove();
  });

  it('create -f, get -o json, and get as a table', async () => {
    const file = await env.file('ep.yaml', ENDPOINTS_YAML);
    expect(await env.ok(['create', '-f', file])).toBe('endpoints/web created\n');
    const object = JSON.parse(await env.ok(['get', 'endpoints', 'web', '-o', 'json'])) as { metadata: { uid: string }; subsets: unknown[] };
    expect(object.metadata.uid).toMatch(/-/);
    const table = await env.ok(['get', 'ep']);
    expect(table).toMatch(/^NAME\s+ENDPOINTS\s+AGE\n/);
    expect(table).toMatch(/\nweb\s+10\.0\.0\.1:80\s+\d+s\n/);
    const again = await env.run(['create', '-f', file]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('AlreadyExists');
  });

  it('refuses a manifest with a misspelt field, as kubectl\'s strict validation expects', async () => {
    const file = await env.file('typo.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndta:\n  a: b\n');
    const strict = await env.run(['create', '-f', file]);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('strict decoding error: unknown field "dta"');
    const warned = await env.run(['create', '-f', file, '--validate=warn']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "dta"');
  });

  it('apply -f creates, then configures, then reports unchanged', async () => {
    const file = await env.file('svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  ports:\n  - name: http\n    port: 80\n  - name: https\n    port: 443\n');
    const first = await env.run(['apply', '-f', file]);
    expect(first.stdout).toBe('service/api created\n');
    expect(first.stderr).toBe('');
    expect(await env.ok(['apply', '-f', file])).toBe('service/api unchanged\n');
    await env.file('svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  ports:\n  - name: http\n    port: 80\n  - name: https\n    port: 443\n    targetPort: 8443\n');
    const second = await env.run(['apply', '-f', file]);
    expect(second.stdout).toBe('service/api configured\n');
    expect(second.stderr).toBe('');
    const ports = JSON.parse(await env.ok(['get', 'svc', 'api', '-o', 'jsonpath={.spec.ports}'])) as { port: number; targetPort: number }[];
    expect(ports.map((port) => [port.port, port.targetPort])).toEqual([
      [80, 80],
      [443, 8443],
    ]);
  });

  it('patch with strategic, merge and json patches', async () => {
    await createConfigMap(env, 'cfg', { a: '1' });
    await env.ok(['patch', 'configmap', 'cfg', '-p', '{"data":{"b":"2"}}']);
    await env.ok(['patch', 'configmap', 'cfg', '--type=merge', '-p', '{"data":{"a":null}}']);
    await env.ok(['patch', 'configmap', 'cfg', '--type=json', '-p', '[{"op":"add","path":"/data/c","value":"3"}]']);
    const data = JSON.parse(await env.ok(['get', 'configmap', 'cfg', '-o', 'jsonpath={.data}'])) as Record<string, string>;
    expect(data).toEqual({ b: '2', c: '3' });
    const failed = await env.run(['patch', 'configmap', 'cfg', '--type=json', '-p', '[{"op":"test","path":"/data/b","value":"9"}]']);
    expect(failed.code).not.toBe(0);
  });

  it('label, annotate and get -l', async () => {
    await createConfigMap(env, 'one');
    await createConfigMap(env, 'two');
    expect(await env.ok(['label', 'configmap', 'one', 'tier=fe'])).toBe('configmap/one labeled\n');
    expect(await env.ok(['annotate', 'configmap', 'one', 'note=hello'])).toBe('configmap/one annotated\n');
    const names = await env.ok(['get', 'configmaps', '-l', 'tier=fe', '-o', 'name']);
    expect(names).toBe('configmap/one\n');
    const annotations = JSON.parse(await env.ok(['get', 'configmap', 'one', '-o', 'jsonpath={.metadata.annotations}'])) as Record<string, string>;
    expect(annotations['note']).toBe('hello');
    const none = await env.run(['get', 'configmaps', '-l', 'tier=none']);
    expect(none.stderr).toContain('No resources found');
  });

  it('get -w sees a later change', async () => {
    await createConfigMap(env, 'watched');
    const child = spawn('kubectl', env.args(['get', 'configmaps', '-w', '--output-watch-events']), { env: { ...process.env, HOME: env.dir } });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const printed = (line: RegExp) => (): true => {
      if (!line.test(output)) throw new Error(`kubectl printed so far: ${JSON.stringify(output)}`);
      return true;
    };
    await waitFor('the initial ADDED line of kubectl get -w', printed(/ADDED\s+watched/), { timeoutMs: 20_000 });
    await env.ok(['label', 'configmap', 'watched', 'seen=yes']);
    await waitFor('the MODIFIED line of kubectl get -w', printed(/MODIFIED\s+watched/), { timeoutMs: 20_000 });
    expect(output).toMatch(/MODIFIED\s+watched\s+0\s+\d+s/);
  });

  it('delete removes the object', async () => {
    await createConfigMap(env, 'doomed');
    expect(await env.ok(['delete', 'configmap', 'doomed'])).toBe('configmap "doomed" deleted\n');
    const gone = await env.run(['get', 'configmap', 'doomed']);
    expect(gone.stderr).toContain('NotFound');
    const deleted = await env.run(['delete', 'configmap', 'doomed']);
    expect(deleted.code).not.toBe(0);
  });
});

describe.skipIf(missing)('kubectl against authenticated devclusters', () => {
  const dirs: string[] = [];
  const clusters: DevCluster[] = [];
  afterAll(async () => {
    for (const cluster of clusters) await cluster.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('serves HTTPS with the client-certificate kubeconfig and rejects others with 401', async () => {
    const tlsDir = await mkdtemp(join(tmpdir(), 'devcluster-tls-'));
    dirs.push(tlsDir);
    const cluster = await startDevCluster({ tls: { dir: tlsDir } });
    clusters.push(cluster);
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const env = await KubectlEnv.create(cluster);
    dirs.push(env.dir);
    const file = await env.file('ep.yaml', ENDPOINTS_YAML);
    expect(await env.ok(['apply', '-f', file])).toBe('endpoints/web created\n');
    expect(await env.ok(['get', 'ep', 'web', '-o', 'name'])).toBe('endpoints/web\n');
    // Authentication without authorization: whoami names the certificate's user, can-i says yes.
    expect(await env.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'])).toBe('admin ["system:masters","system:authenticated"]');
    expect(await env.ok(['auth', 'can-i', 'delete', 'endpoints'])).toBe('yes\n');
    // Without a client certificate (and without a token) the server answers 401. Checked with a
    // plain HTTPS request: kubectl would prompt for a username on 401.
    const ca = Buffer.from(cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString();
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpsRequest(`${cluster.url}/api/v1/namespaces`, { ca }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(status).toBe(401);
  });

  it('accepts a static token and answers 401 Unauthorized without it', async () => {
    // kubectl does not send bearer tokens to plain-http servers, so this one is checked with fetch.
    const cluster = await startDevCluster({ tokens: ['s3cret'] });
    clusters.push(cluster);
    expect(cluster.kubeConfig.users[0]?.user.token).toBe('s3cret');
    const allowed = await fetch(`${cluster.url}/api/v1/namespaces/default`, { headers: { authorization: 'Bearer s3cret' } });
    expect(allowed.status).toBe(200);
    const response = await fetch(`${cluster.url}/api/v1/namespaces`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const wrong = await fetch(`${cluster.url}/api/v1/namespaces`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${cluster.url}/healthz`)).status).toBe(200);
  });
});
