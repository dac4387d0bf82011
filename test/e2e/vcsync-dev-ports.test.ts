import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { callManagement, KEYS_PATH } from '../support/management-fixture.js';
import { assertBuilt } from '../support/vcsync-cli.js';
import { VcsyncDevProcess } from '../support/vcsync-dev-process.js';
import { waitFor } from '../support/wait-for.js';

const KUBECONFIG_PATH = '/apis/management.loft.sh/v1/namespaces/vcluster-dev/virtualclusterinstances/dev/kubeconfig';

interface KubeConfig {
  clusters: [{ cluster: { server: string; 'certificate-authority-data': string } }];
  users: [{ user: { token: string } }];
}

/** Who the virtual cluster says the kube config's token is (a SelfSubjectReview), or the HTTP status. */
async function whoIs(kubeConfig: KubeConfig): Promise<string | number> {
  const cluster = kubeConfig.clusters[0].cluster;
  const target = { url: cluster.server, caCertPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') };
  const review = await callManagement(target, 'POST', '//apis/authentication.k8s.io/v1/selfsubjectreviews', {
    key: kubeConfig.users[0].user.token,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  return review.status === 201 ? String(review.body.status.userInfo.username) : review.status;
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}

describe('vcsync dev keeps its ports across restarts', () => {
  const dirs: string[] = [];
  const running: VcsyncDevProcess[] = [];
  const servers: Server[] = [];

  afterEach(async () => {
    for (const dev of running.splice(0)) await dev.kill();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('a token-mode kube config issued before a restart still works after it; a kept port that is taken stops the start naming it, and --new-ports moves on saying what that ends', async () => {
    assertBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-dev-ports-'));
    dirs.push(dir);

    const first = VcsyncDevProcess.spawn(dir);
    running.push(first);
    await first.running();
    const management = await first.management();
    // The metrics port is written once the metrics endpoint listens, alongside the printed next steps.
    const ports = await waitFor('every port kept', async () => {
      const kept = JSON.parse(await readFile(join(dir, 'ports.json'), 'utf8')) as Record<string, number>;
      return Object.keys(kept).length === 4 ? kept : undefined;
    });
    expect(Object.keys(ports).sort()).toEqual(['host', 'management', 'metrics', 'virtual']);
    expect(management.url).toBe(`https://127.0.0.1:${ports['management']}/kubernetes/management`);
    const created = await callManagement(management, 'POST', KEYS_PATH, {
      key: management.adminKey,
      body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'bob-dev' }, spec: { user: 'bob' } },
    });
    expect(created.status, created.text).toBe(201);
    const issued = await callManagement(management, 'POST', KUBECONFIG_PATH, { key: created.body.spec.key as string, contentType: 'application/yaml', body: 'spec: {}' });
    expect(issued.status, issued.text).toBe(201);
    const kubeConfig = parse(String(issued.body.status.kubeConfig)) as KubeConfig;
    expect(await whoIs(kubeConfig)).toBe('bob');
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const second = VcsyncDevProcess.spawn(dir);
    running.push(second);
    await second.running();
    expect((await second.management()).url).toBe(management.url);
    expect(JSON.parse(await readFile(join(dir, 'ports.json'), 'utf8'))).toEqual(ports);
    expect(await whoIs(kubeConfig)).toBe('bob');
    expect(await second.stop()).toEqual({ code: 0, signal: null });

    servers.push(await listen(ports['management']!));
    const blocked = VcsyncDevProcess.spawn(dir);
    running.push(blocked);
    expect((await blocked.ended()).code).toBe(1);
    expect(blocked.stderr).toContain(`127.0.0.1:${ports['management']} (the management API) is in use`);
    expect(blocked.stderr).toContain('--new-ports');
    expect(blocked.stderr).not.toContain('unexpected error');

    const moved = VcsyncDevProcess.spawn(dir, ['--new-ports']);
    running.push(moved);
    await moved.running();
    expect(moved.stderr).toContain('--new-ports: picking new ports');
    expect((await moved.management()).url).not.toBe(management.url);
    expect(JSON.parse(await readFile(join(dir, 'ports.json'), 'utf8'))['management']).not.toBe(ports['management']);
    expect(await moved.stop()).toEqual({ code: 0, signal: null });
  });
});
