import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DevCluster } from '../../src/devcluster/index.js';

/**
 * Whether kubectl can run here. e2e suites skip (with this printed reason) only when it cannot;
 * `what` names the suite in the message.
 */
export function kubectlMissing(what: string): boolean {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  const missing = probe.error !== undefined || probe.status !== 0;
  if (missing) console.warn(`skipping ${what}: kubectl is not runnable (${probe.error?.message ?? probe.stderr})`);
  return missing;
}

/** The outcome of one kubectl run. */
export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A temp HOME with its own kubeconfig and discovery cache for one server, so tests never share
 * kubectl's caches or read the developer's ~/.kube.
 */
export class KubectlEnv {
  constructor(
    readonly dir: string,
    readonly kubeconfig: string,
    /** The kubectl to run: a path, or a name looked up on PATH. */
    readonly binary = 'kubectl',
  ) {}

  /** A fresh environment holding `cluster`'s kubeconfig. */
  static async create(cluster: DevCluster, prefix = 'kubectl-env-'): Promise<KubectlEnv> {
    return KubectlEnv.forKubeconfig(cluster.kubeConfigYaml(), { prefix });
  }

  /** A fresh environment holding the kubeconfig `yaml`, running `options.binary` (default `kubectl` on PATH). */
  static async forKubeconfig(yaml: string, options: { prefix?: string; binary?: string } = {}): Promise<KubectlEnv> {
    const dir = await mkdtemp(join(tmpdir(), options.prefix ?? 'kubectl-env-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, yaml);
    return new KubectlEnv(dir, kubeconfig, options.binary);
  }

  /** `args` with this environment's kubeconfig and cache dir in front. */
  args(args: string[]): string[] {
    return ['--kubeconfig', this.kubeconfig, '--cache-dir', join(this.dir, 'cache'), ...args];
  }

  /** Runs kubectl (30 s limit); never rejects: the exit code is in the result. */
  run(args: string[], stdin?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(this.binary, this.args(args), { env: { ...process.env, HOME: this.dir, KUBECONFIG: this.kubeconfig }, timeout: 30_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  }

  /** Runs kubectl and returns stdout; a non-zero exit fails with kubectl's stderr. */
  async ok(args: string[], stdin?: string): Promise<string> {
    const result = await this.run(args, stdin);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return result.stdout;
  }

  /** Writes `text` to a file in the environment and returns its path. */
  async file(name: string, text: string): Promise<string> {
    const path = join(this.dir, name);
    await writeFile(path, text);
    return path;
  }

  /** Removes the environment's directory. */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
