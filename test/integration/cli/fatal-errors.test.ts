import { createServer } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { assertBuilt, runVcsync } from '../../support/vcsync-cli.js';

/**
 * Every fatal error of start, dev, devcluster and validate reads the same way: located lines on
 * stderr (a config's errors exactly as `vcsync validate` prints them, a file, or the command
 * typed), never a JSON log line or a stack, and exit code 1 for a wrong input or 2 for a wrong
 * command line.
 */
describe('fatal errors: one located style, one exit code table', () => {
  let dir: { dir: string; remove: () => Promise<void> };
  const file = (name: string): string => join(dir.dir, name);

  beforeAll(() => assertBuilt(['src/cli', 'src/config']));
  beforeEach(async () => {
    dir = await tempDir('vcsync-fatal-errors-');
    await writeFile(file('valid.yaml'), 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n');
    await writeFile(file('invalid-yaml.yaml'), 'sync:\n  toHost: [\n');
    await writeFile(file('schema.yaml'), 'sync:\n  toHost:\n    endpoints:\n      enabled: maybe\n');
    await writeFile(file('patch.yaml'), 'sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: metadata.labels.x\n          expression: "value +"\n');
    await writeFile(file('virtual.kubeconfig'), 'apiVersion: v1\nkind: Config\n');
  });
  afterEach(() => dir.remove());

  const start = (config: string, extra: readonly string[] = []): readonly string[] => [
    'start',
    '--name',
    'vc',
    '--host-namespace',
    'ns',
    '--virtual-kubeconfig',
    file('virtual.kubeconfig'),
    '--listen-metrics',
    '127.0.0.1:0',
    '--config',
    file(config),
    ...extra,
  ];

  const cases: readonly { name: string; args: () => readonly string[]; code: number; stderr: () => string[] }[] = [
    {
      name: 'a missing config file',
      args: () => start('missing.yaml'),
      code: 1,
      stderr: () => [`${file('missing.yaml')} cannot read the config file: the file does not exist`, `${file('missing.yaml')}: 1 error`],
    },
    {
      name: 'invalid YAML',
      args: () => start('invalid-yaml.yaml'),
      code: 1,
      stderr: () => [
        `${file('invalid-yaml.yaml')}:3:1 invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
        `${file('invalid-yaml.yaml')}: 1 error`,
      ],
    },
    {
      name: 'a schema error',
      args: () => start('schema.yaml'),
      code: 1,
      stderr: () => [`${file('schema.yaml')}:4:16 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "maybe"`, `${file('schema.yaml')}: 1 error`],
    },
    {
      name: 'a patch that does not compile',
      args: () => start('patch.yaml'),
      code: 1,
      stderr: () => [
        `${file('patch.yaml')}:6:31 sync.toHost.endpoints.patches[0].expression: Unexpected token; an expression must be a single JavaScript expression such as value + "-suffix"`,
        `${file('patch.yaml')}: 1 error`,
      ],
    },
    {
      name: 'a kubeconfig path that does not exist, and one that is a directory',
      args: () => start('valid.yaml', ['--virtual-kubeconfig', file('nowhere.kubeconfig'), '--host-kubeconfig', dir.dir]),
      code: 1,
      stderr: () => [
        `${file('nowhere.kubeconfig')}: cannot read the kubeconfig given by --virtual-kubeconfig (VCSYNC_VIRTUAL_KUBECONFIG): the file does not exist`,
        `${dir.dir}: cannot read the kubeconfig given by --host-kubeconfig (VCSYNC_HOST_KUBECONFIG): the path is a directory, not a file`,
      ],
    },
    {
      name: 'a kubeconfig without a current context',
      args: () => start('valid.yaml'),
      code: 1,
      stderr: () => [`vcsync start: kubeconfig for cluster virtual (file ${file('virtual.kubeconfig')}) has no current context with a cluster; set current-context`],
    },
    {
      name: 'an unknown flag',
      args: () => start('valid.yaml', ['--nmae', 'vc']),
      code: 2,
      stderr: () => ["vcsync start: unknown option '--nmae'", '(Did you mean --name?)'],
    },
    {
      name: 'no host namespace outside a pod',
      args: () => ['start', '--name', 'vc', '--virtual-kubeconfig', file('virtual.kubeconfig'), '--config', file('valid.yaml')],
      code: 2,
      stderr: () => ['vcsync start: no host namespace: pass --host-namespace (or VCSYNC_HOST_NAMESPACE) when not running in a pod'],
    },
    {
      name: 'validate: the same lines as start',
      args: () => ['validate', '--config', file('schema.yaml')],
      code: 1,
      stderr: () => [`${file('schema.yaml')}:4:16 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "maybe"`, `${file('schema.yaml')}: 1 error`],
    },
    {
      name: 'dev: a config that does not compile',
      args: () => ['dev', '--dir', file('dev'), '--config', file('patch.yaml')],
      code: 1,
      stderr: () => [
        `${file('patch.yaml')}:6:31 sync.toHost.endpoints.patches[0].expression: Unexpected token; an expression must be a single JavaScript expression such as value + "-suffix"`,
        `${file('patch.yaml')}: 1 error`,
      ],
    },
    {
      name: 'devcluster: an invalid listen address',
      args: () => ['devcluster', '--listen', 'localhost'],
      code: 2,
      stderr: () => ["vcsync devcluster: option '--listen <host:port>' argument 'localhost' is invalid. expected HOST:PORT, :PORT or PORT (e.g. 127.0.0.1:6443), got \"localhost\""],
    },
  ];

  it.each(cases)('$name: exact stderr lines and exit code', async ({ args, code, stderr }) => {
    const result = await runVcsync(args(), { env: { VCSYNC_LOG_LEVEL: undefined, KUBERNETES_SERVICE_HOST: undefined } });
    expect(result.stderr.split('\n')).toEqual([...stderr(), '']);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
  });
});

/** Picks a port nothing listens on (the kernel's choice), and releases it. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('vcsync dev checks its inputs before it starts anything', () => {
  let dir: { dir: string; remove: () => Promise<void> };

  beforeAll(() => assertBuilt(['src/cli', 'src/config']));
  beforeEach(async () => {
    dir = await tempDir('vcsync-dev-precheck-');
  });
  afterEach(() => dir.remove());

  it('a missing config ends it with the located line before any server started: nothing written under --dir', async () => {
    const ports = { management: await unusedPort(), virtual: await unusedPort(), host: await unusedPort(), metrics: await unusedPort() };
    const portsFile = `${JSON.stringify(ports, null, 2)}\n`;
    await writeFile(join(dir.dir, 'ports.json'), portsFile);
    const missing = join(dir.dir, 'missing.yaml');

    const result = await runVcsync(['dev', '--dir', dir.dir, '--config', missing]);

    expect(result.stderr.split('\n')).toEqual([`${missing} cannot read the config file: the file does not exist`, `${missing}: 1 error`, '']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    // Each server writes its data, TLS assets and kubeconfig as it starts, the management API its
    // admin key: none of them is there, and the kept ports are as they were.
    expect(await readdir(dir.dir)).toEqual(['ports.json']);
    expect(await readFile(join(dir.dir, 'ports.json'), 'utf8')).toBe(portsFile);
  });

  it('a --dir that does not exist is not created', async () => {
    const target = join(dir.dir, 'not-yet');
    const result = await runVcsync(['dev', '--dir', target, '--config', join(dir.dir, 'missing.yaml')]);
    expect(result.code).toBe(1);
    expect(await readdir(dir.dir)).toEqual([]);
  });
});
