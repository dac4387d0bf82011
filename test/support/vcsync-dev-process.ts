import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEV_LISTEN_HOST, DEV_PORTS_FILE, parseDevPorts } from '../../src/cli/dev-ports.js';
import { stopProcess } from './devcluster-process.js';
import { REPO_ROOT, VCSYNC_NODE_ARGS } from './vcsync-cli.js';
import { waitFor } from './wait-for.js';

/** How a `vcsync dev` process ended. */
export interface DevExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `vcsync dev` child process (the built bin) on its own directory, with what it printed so far. */
export class VcsyncDevProcess {
  stdout = '';
  stderr = '';
  exit: DevExit | undefined;

  private constructor(
    readonly dir: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    child.once('exit', (code, signal) => (this.exit = { code, signal }));
  }

  /** Spawns `node ...nodeArgs vcsync dev --dir dir ...args` from the repository root with `env` added. */
  static spawn(dir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}, nodeArgs: readonly string[] = []): VcsyncDevProcess {
    const child = spawn(process.execPath, [...nodeArgs, ...VCSYNC_NODE_ARGS, 'dev', '--dir', dir, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return new VcsyncDevProcess(dir, child);
  }

  /**
   * Waits until it runs: the metrics port it wrote into its ports file answers /readyz (its
   * clusters, management API and syncer are up and synced). Fails at once when it exits first.
   */
  async running(): Promise<void> {
    await waitFor(
      'vcsync dev to answer /readyz on the metrics port of its ports file',
      async () => {
        if (this.exit !== undefined) throw new Error(`vcsync dev exited early (${JSON.stringify(this.exit)}): ${this.stderr}${this.stdout}`);
        return await this.#ready();
      },
      { timeoutMs: 60_000, intervalMs: 50, retryErrors: false },
    );
  }

  async #ready(): Promise<boolean> {
    try {
      const ports = parseDevPorts(await readFile(join(this.dir, DEV_PORTS_FILE), 'utf8'), DEV_PORTS_FILE);
      if (ports.metrics === undefined) return false;
      const response = await fetch(`http://${DEV_LISTEN_HOST}:${ports.metrics}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return response.status === 200;
    } catch {
      return false; // not written yet, or not listening yet: look again
    }
  }

  /** Waits until it exited on its own, and how. */
  ended(): Promise<DevExit> {
    return waitFor('vcsync dev to exit', () => this.exit, { timeoutMs: 60_000, intervalMs: 50 });
  }

  /** SIGTERM, then waits for the exit. */
  async stop(): Promise<DevExit> {
    if (this.exit === undefined) this.child.kill('SIGTERM');
    return this.ended();
  }

  /** Kills it when still running (test cleanup). */
  async kill(): Promise<void> {
    await stopProcess(this.child);
  }

  /** The management API as `<dir>/management.kubeconfig` names it: base URL, CA and the admin key. */
  async management(): Promise<{ url: string; caCertPem: string; adminKey: string }> {
    const config = parse(await readFile(join(this.dir, 'management.kubeconfig'), 'utf8')) as {
      clusters: [{ cluster: { server: string; 'certificate-authority-data': string } }];
      users: [{ user: { token: string } }];
    };
    return {
      url: config.clusters[0].cluster.server,
      caCertPem: Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'),
      adminKey: config.users[0].user.token,
    };
  }
}
