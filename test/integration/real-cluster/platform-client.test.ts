import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { deferredCsrClient } from '../../../src/management/index.js';
import { ManagementFixture } from '../../support/management-fixture.js';
import { clientFor } from '../../support/sync-harness.js';

/**
 * The Go program in ./platform-client talks to the management API as the vCluster
 * Platform's typed clients do (client-go, structs with the Platform's field names and Go types,
 * every answer decoded strictly) and must finish with `ok all`. It runs against a management API
 * whose virtual cluster is a TLS devcluster (which signs the kube config's client certificate).
 */
const PROGRAM_DIR = join(dirname(fileURLToPath(import.meta.url)), 'platform-client');
const GO_HINT = 'install Go 1.26 or newer (https://go.dev/doc/install) and put `go` on PATH; .ci/run has it';

function goMissing(): boolean {
  const check = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (check.error === undefined && check.status === 0) return false;
  console.warn(`skipping the Platform client-go program: Go is not runnable here; ${GO_HINT}`);
  return true;
}

/**
 * The program's binary, built once per input under ~/.cache/vcsync/platform-client/<hash of the
 * sources, go.mod, go.sum and Go's version>/ (XDG_CACHE_HOME moves it), as tools/kube-assets does.
 */
function programBinary(): string {
  const hash = createHash('sha256');
  hash.update(spawnSync('go', ['version'], { encoding: 'utf8' }).stdout);
  for (const file of readdirSync(PROGRAM_DIR).sort()) {
    if (file.endsWith('.go') || file === 'go.mod' || file === 'go.sum') hash.update(file).update(readFileSync(join(PROGRAM_DIR, file)));
  }
  const dir = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'vcsync', 'platform-client', hash.digest('hex').slice(0, 16));
  const binary = join(dir, 'platform-client');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`;
  const build = spawnSync('go', ['build', '-mod=readonly', '-o', partial, '.'], { cwd: PROGRAM_DIR, encoding: 'utf8' });
  if (build.status !== 0) {
    rmSync(partial, { force: true });
    throw new Error(`go build of ${PROGRAM_DIR} failed (${build.error?.message ?? `exit ${String(build.status)}`}):\n${build.stderr}`);
  }
  renameSync(partial, binary);
  return binary;
}

/** Runs the program to its end; its output and exit code. */
function runProgram(binary: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.skipIf(goMissing())('the Platform typed clients: a client-go program against the management API', () => {
  let binary: string;
  let management: ManagementFixture;
  let cluster: DevCluster;
  let client: RestClient;
  let dir: string;

  beforeAll(async () => {
    binary = programBinary();
    const late: { cluster?: DevCluster; client?: RestClient } = {};
    management = await ManagementFixture.start({
      virtualCluster: {
        name: 'vc1',
        namespace: 'vcluster-vc1',
        ingressHost: () => 'vc1.example.test',
        get caCertPem(): string {
          return Buffer.from(late.cluster?.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
        },
        client: deferredCsrClient(() => late.client as RestClient),
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'platform-client-'));
    cluster = await startDevCluster({ port: 0, tls: { dir }, tokenReviewUrl: management.server.tokenReviewUrl, tokenReviewCaPem: management.tls.caCertPem });
    late.cluster = cluster;
    client = clientFor(cluster, 'virtual-admin');
    late.client = client;
  }, 600_000);
  afterAll(async () => {
    client?.close();
    await cluster?.close();
    await management?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('creates, gets, lists, watches, updates, patches (JSON, merge, apply) and deletes with every field set, and decodes every answer strictly', async () => {
    const { code, output } = await runProgram(binary, {
      PLATFORM_CLIENT_SERVER: management.server.url,
      PLATFORM_CLIENT_CA_FILE: management.tls.caCertPath,
      PLATFORM_CLIENT_TOKEN: management.adminKey,
      PLATFORM_CLIENT_INSTANCE: 'vcluster-vc1/vc1',
    });
    expect({ code, failures: output.split('\n').filter((line) => line.startsWith('FAIL')) }, output).toEqual({ code: 0, failures: [] });
    const steps = output.split('\n').filter((line) => line.startsWith('ok '));
    expect(steps.map((line) => line.split(' (')[0])).toEqual([
      'ok create OwnedAccessKey',
      'ok get OwnedAccessKey',
      'ok list OwnedAccessKeys',
      'ok update OwnedAccessKey',
      'ok watch OwnedAccessKeys',
      'ok patch OwnedAccessKey',
      'ok patch OwnedAccessKey',
      'ok patch OwnedAccessKey',
      'ok allowLoftCli: a CLI-only key lists keys and may not create one',
      'ok create DirectClusterEndpointToken',
      'ok create VirtualClusterInstanceKubeConfig',
      'ok delete OwnedAccessKey',
      'ok all',
    ]);
    const fields = output.split('\n').filter((line) => line.startsWith('field '));
    // The fields the Platform's typed clients write, each set, sent and read back in the Platform's Go types.
    for (const field of [
      'field spec.scope.allowLoftCli = true',
      'field spec.identityRefresh = "2026-01-02T03:04:05Z"',
      `field spec.oidcLogin.idToken = "${Buffer.from('id token \x00\xff', 'latin1').toString('base64')}"`,
      'field spec.scope.rules[0].requestTargets[2] = "ProjectSpace"',
      'field spec.scope.rules[0].requestTargets[3] = "ProjectVirtualCluster"',
      'field spec.type = "User"',
      'field spec.ttl = 86400',
      'field virtualClusterInstanceKubeConfig.spec.certificateTTL = 3600',
      'field directClusterEndpointToken.spec.scope.allowLoftCli = true',
    ]) {
      expect(fields).toContain(field);
    }
  }, 300_000);
});
