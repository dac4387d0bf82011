import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubectlMissing } from '../support/kubectl.js';
import { callManagement, KEYS_PATH } from '../support/management-fixture.js';
import { assertBuilt, REPO_ROOT as REPO, VCSYNC_NODE_ARGS } from '../support/vcsync-cli.js';
import { stopProcess } from '../support/devcluster-process.js';
import { waitFor } from '../support/wait-for.js';


const missing = kubectlMissing('the vcsync dev e2e test');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command line `vcsync dev` printed, from the repository root (its paths are relative to it). */
function runPrinted(line: string, home: string): Promise<Result> {
  const [command, ...args] = line.trim().split(/\s+/);
  if (command !== 'kubectl') throw new Error(`vcsync dev printed a command that is not kubectl: ${line}`);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env['KUBECONFIG'];
  return new Promise((done) => {
    execFile('kubectl', args, { cwd: REPO, env, timeout: 30_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe.skipIf(missing)('vcsync dev, driven by the commands it prints', () => {
  let child: ChildProcess | undefined;
  const dirs: string[] = [];

  afterEach(async () => {
    if (child !== undefined) await stopProcess(child);
    child = undefined;
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('syncs the example Endpoints to the host as web-x-default-x-dev with its translated annotation, serves the management API, authenticates access keys on the virtual cluster through it, and exits 0 on SIGTERM', async () => {
    assertBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-dev-'));
    const home = await mkdtemp(join(tmpdir(), 'vcsync-dev-home-'));
    dirs.push(dir, home);

    const proc = spawn(process.execPath, [...VCSYNC_NODE_ARGS, 'dev', '--dir', dir], { cwd: REPO, env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    proc.once('exit', (code, signal) => (exit = { code, signal }));

    await waitFor('the printed next steps', () => {
      if (proc.exitCode !== null) throw new Error(`vcsync dev exited early (${proc.exitCode}): ${stderr}${stdout}`);
      return stdout.includes('Press Ctrl-C to stop');
    }, { timeoutMs: 45_000, intervalMs: 50 });
    const lines = stdout.split('\n');
    const next = lines.findIndex((l) => l.startsWith('Next, in another terminal:'));
    expect(next).toBeGreaterThanOrEqual(0);
    const commands = lines.slice(next + 1).filter((l) => l.startsWith('  kubectl '));
    expect(commands).toHaveLength(5);
    const [apply, list, get, management, whoami] = commands as [string, string, string, string, string];
    expect(whoami).toContain('--token <ACCESS_KEY>');
    expect(management).toContain('management.kubeconfig');
    expect(get).toContain('web-x-default-x-dev');

    const applied = await runPrinted(apply, home);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('endpoints/web');

    const listed = await waitFor('the host copy in the printed list', async () => {
      const result = await runPrinted(list, home);
      return result.code === 0 && result.stdout.includes('web-x-default-x-dev') ? result : undefined;
    });
    expect(listed.stdout).toMatch(/10\.0\.0\.11:8080,10\.0\.0\.12:8080/);

    const shown = await waitFor('the printed get', async () => {
      const result = await runPrinted(get, home);
      return result.code === 0 ? result : undefined;
    });
    const host = parse(shown.stdout) as { metadata: { namespace: string; labels: Record<string, string>; annotations: Record<string, string> } };
    expect(host.metadata.namespace).toBe('vcluster-dev');
    expect(host.metadata.labels).toMatchObject({ app: 'web', 'vcluster.loft.sh/managed-by': 'dev', 'vcluster.loft.sh/namespace': 'default' });
    // config/vcluster.yaml's first patch: a virtual in-cluster DNS name becomes the host Service's.
    expect(host.metadata.annotations['example.com/upstream']).toBe('api-x-default-x-dev.vcluster-dev.svc');
    expect(host.metadata.annotations['vcluster.loft.sh/object-name']).toBe('web');

    // The management API, through the kubeconfig it wrote (HTTPS, the CA, the bootstrap admin key).
    const keys = await runPrinted(management, home);
    expect(keys.stderr).toBe('');
    expect(keys.stdout).toMatch(/vcsync-bootstrap-admin\s+user:admin\s+Other\s+false/);

    // The virtual cluster authenticates access keys through the management API's TokenReview webhook.
    const managementConfig = parse(await readFile(join(dir, 'management.kubeconfig'), 'utf8')) as {
      clusters: [{ cluster: { server: string; 'certificate-authority-data': string } }];
      users: [{ user: { token: string } }];
    };
    const target = { url: managementConfig.clusters[0].cluster.server, caCertPem: Buffer.from(managementConfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8') };
    const created = await callManagement(target, 'POST', KEYS_PATH, {
      key: managementConfig.users[0].user.token,
      body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'alice-dev' }, spec: { user: 'alice', groups: ['developers'] } },
    });
    expect(created.status).toBe(201);
    const asAlice = await runPrinted(whoami.replace('<ACCESS_KEY>', created.body.spec.key as string), home);
    expect(asAlice.stderr).toBe('');
    expect(asAlice.stdout).toMatch(/Username\s+alice/);
    expect(asAlice.stdout).toMatch(/Groups\s+\[developers system:authenticated\]/);
    // A kube config of the virtual cluster for alice (the printed request), used as is with kubectl.
    const request = lines.find((l) => l.startsWith('  curl '));
    expect(request).toContain('/virtualclusterinstances/dev/kubeconfig');
    const kubeConfig = await callManagement(target, 'POST', '/apis/management.loft.sh/v1/namespaces/vcluster-dev/virtualclusterinstances/dev/kubeconfig', {
      key: created.body.spec.key as string,
      contentType: 'application/yaml',
      body: 'spec: {}',
    });
    expect(kubeConfig.status, kubeConfig.text).toBe(201);
    await writeFile(join(home, 'alice.kubeconfig'), String(kubeConfig.body.status.kubeConfig));
    const withKubeConfig = await runPrinted(`kubectl --kubeconfig ${join(home, 'alice.kubeconfig')} auth whoami`, home);
    expect(withKubeConfig.stderr).toBe('');
    expect(withKubeConfig.stdout).toMatch(/Username\s+alice/);
    const unknown = await runPrinted(whoami.replace('<ACCESS_KEY>', 'Unknown_Key_0123456789abcdefghijklmnopqrstu'), home);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('Unauthorized');

    proc.kill('SIGTERM');
    const ended = await waitFor('vcsync dev to exit', () => exit, { timeoutMs: 30_000, intervalMs: 50 });
    expect(ended, stderr).toEqual({ code: 0, signal: null });
  });
});
