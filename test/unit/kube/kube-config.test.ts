import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KubeErrorCode } from '../../../src/kube/kube-errors.js';
import { clusterCaPem, loadClusterConfig } from '../../../src/kube/kube-config.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function document(cluster: Record<string, unknown>, user: Record<string, unknown>, namespace?: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'other', cluster: { server: 'https://other:1' } }, { name: 'c', cluster }],
    users: [{ name: 'other', user: { token: 'wrong' } }, { name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...(namespace !== undefined ? { namespace } : {}) } }],
    'current-context': 'ctx',
  };
}

/** What client-node's KubeConfig writes into request options for the same file: the behaviour the light path keeps. */
async function clientNodeOptions(path: string): Promise<https.RequestOptions> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  const options: https.RequestOptions = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(options);
  return { headers: options.headers, auth: options.auth, ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized, servername: options.servername };
}

describe('loadClusterConfig without client-node', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vcsync-kubeconfig-'));
    await writeFile(join(dir, 'ca.crt'), 'CA FROM FILE');
    await writeFile(join(dir, 'client.crt'), 'CERT FROM FILE');
    await writeFile(join(dir, 'client.key'), 'KEY FROM FILE');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const CASES: readonly [name: string, cluster: Record<string, unknown>, user: Record<string, unknown>][] = [
    ['a token and an inline CA', { server: 'https://10.0.0.1:6443/', 'certificate-authority-data': b64('INLINE CA') }, { token: 'abc' }],
    ['client certificate and key inline', { server: 'https://k:443', 'certificate-authority-data': b64('CA') }, { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') }],
    ['files relative to the kubeconfig, which win over data', { server: 'https://k', 'certificate-authority': 'ca.crt', 'certificate-authority-data': b64('IGNORED') }, { 'client-certificate': 'client.crt', 'client-key': 'client.key' }],
    ['basic auth, impersonation, a TLS server name and no verification', { server: 'https://k', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api.internal' }, { username: 'jane', password: 'pw', as: 'admin' }],
    ['no credentials at all', { server: 'https://k' }, {}],
  ];

  it.each(CASES)('applies %s as client-node does', async (_name, cluster, user) => {
    const path = join(dir, 'config');
    await writeFile(path, stringify(document(cluster, user, 'team')));
    const loaded = loadClusterConfig({ kind: 'file', path }, { name: 'host' });
    const options: https.RequestOptions = { headers: {} };
    await loaded.applyToHTTPSOptions(options);
    const mine = { headers: options.headers, auth: options.auth, ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized, servername: options.servername };
    expect(mine).toEqual(await clientNodeOptions(path));
    expect(loaded.namespace).toBe('team');
    expect(loaded.server).toBe(String(cluster['server']).replace(/\/+$/, ''));
  });

  it('reads a token file at load and again on every call, so a rotated token is used', async () => {
    const tokenPath = join(dir, 'token');
    await writeFile(tokenPath, 'first-token\n');
    const path = join(dir, 'config-token-file');
    await writeFile(path, stringify(document({ server: 'https://k' }, { 'token-file': tokenPath })));
    const loaded = loadClusterConfig({ kind: 'file', path }, { name: 'host' });
    const bearer = async (): Promise<unknown> => {
      const options: https.RequestOptions = { headers: {} };
      await loaded.applyToHTTPSOptions(options);
      return (options.headers as Record<string, unknown>)['Authorization'];
    };
    expect(await bearer()).toBe('Bearer first-token');
    await writeFile(tokenPath, 'rotated-token\n');
    expect(await bearer()).toBe('Bearer rotated-token');
    await rm(tokenPath);
    await expect(bearer()).rejects.toThrow(`cannot read the token file ${tokenPath} of cluster host`);
    await rm(path);
    await writeFile(join(dir, 'missing-token-config'), stringify(document({ server: 'https://k' }, { 'token-file': tokenPath })));
    expect(() => loadClusterConfig({ kind: 'file', path: join(dir, 'missing-token-config') }, { name: 'host' })).toThrow('cannot read the token file');
  });

  it('reads the CA for the management API from the file or the inline data', async () => {
    const path = join(dir, 'ca-config');
    await writeFile(path, stringify(document({ server: 'https://k', 'certificate-authority': 'ca.crt' }, {})));
    expect(clusterCaPem(loadClusterConfig({ kind: 'file', path }, { name: 'v' }))).toBe('CA FROM FILE');
    expect(clusterCaPem(loadClusterConfig({ kind: 'object', config: document({ server: 'https://k', 'certificate-authority-data': b64('PEM') }, {}) }, { name: 'v' }))).toBe('PEM');
    expect(clusterCaPem(loadClusterConfig({ kind: 'object', config: document({ server: 'http://k' }, {}) }, { name: 'v' }))).toBeUndefined();
  });

  it('names the cluster and the missing context, and the unreadable file', async () => {
    expect(() => loadClusterConfig({ kind: 'object', config: document({ server: 'https://k' }, {}) }, { name: 'host', context: 'nope' })).toThrow(
      expect.objectContaining({ code: KubeErrorCode.config, message: 'kubeconfig for cluster host has no context nope' }),
    );
    expect(() => loadClusterConfig({ kind: 'file', path: join(dir, 'missing') }, { name: 'virtual' })).toThrow(expect.objectContaining({ code: KubeErrorCode.config, message: expect.stringContaining(`cluster virtual (file ${join(dir, 'missing')})`) }));
    const loaded = loadClusterConfig({ kind: 'object', config: document({ server: 'https://k', 'certificate-authority': join(dir, 'gone.crt') }, {}) }, { name: 'host' });
    await expect(loaded.applyToHTTPSOptions({})).rejects.toMatchObject({ code: KubeErrorCode.config, message: expect.stringContaining('gone.crt') });
  });

  it('hands an exec plugin user to client-node, loaded at the first request', async () => {
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } });
    const user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`], interactiveMode: 'Never' } };
    const loaded = loadClusterConfig({ kind: 'object', config: document({ server: 'https://k' }, user) }, { name: 'host' });
    const options: https.RequestOptions = { headers: {} };
    await loaded.applyToHTTPSOptions(options);
    expect(options.headers).toEqual({ Authorization: 'Bearer from-exec' });
  });
});
