// Child processes of the syncer benchmarks: devclusters and the syncer itself, each in its own
// Node process (`node dist/cli/main.js ...`) so their CPU and memory are separate from the
// benchmark's and the syncer's RSS is its own.
import { execFileSync, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { benchmarksDir, mainJs, repoDir } from './bench-run.mjs';

/**
 * A running child: its pid, the lines it printed, and `stop()` (SIGTERM, then SIGKILL after 5 s).
 * Runs `node NODE_ARGS dist/cli/main.js ARGS`, or `node NODE_ARGS SCRIPT ARGS` with `script` (then stdin is a
 * pipe: `send(line)`).
 */
class ChildProcess {
  #child;
  #waiters = [];
  #exited;
  stderr = '';
  lineCount = 0;

  constructor(label, args, { script, nodeArgs = [] } = {}) {
    this.label = label;
    const command = script === undefined ? [...nodeArgs, mainJs, ...args] : [...nodeArgs, script, ...args];
    this.#child = spawn(process.execPath, command, { cwd: repoDir, stdio: [script === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    this.pid = this.#child.pid;
    this.#exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ code, signal })));
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (text) => {
      this.stderr = (this.stderr + text).slice(-4000);
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      this.lineCount += 1;
      for (const waiter of [...this.#waiters]) {
        const value = waiter.match(line);
        if (value !== undefined) {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          waiter.resolve(value);
        }
      }
    });
    void this.#exited.then(({ code, signal }) => {
      for (const waiter of this.#waiters) waiter.reject(new Error(`${label} exited (${code ?? signal}) before printing what was awaited:\n${this.stderr}`));
      this.#waiters = [];
    });
  }

  /** Resolves with `match(line)` for the first stdout line where it is not undefined. */
  waitForLine(match, timeoutMs = 120_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: nothing matched within ${timeoutMs} ms\n${this.stderr}`)), timeoutMs);
      this.#waiters.push({
        match,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  /** Writes `line` to the child's stdin (children started with a script only). */
  send(line) {
    this.#child.stdin.write(`${line}\n`);
  }

  /** Resolves true once the child exits by itself, false after `timeoutMs` if it has not. */
  async exitedWithin(timeoutMs) {
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const exited = await Promise.race([this.#exited.then(() => true), timeout]);
    clearTimeout(timer);
    return exited;
  }

  async stop() {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * Starts `vcsync devcluster --listen 127.0.0.1:0 --kubeconfig <dir>/<name>.kubeconfig` (memory
 * only: no data dir, so the figures measure the syncer, not fsync) and resolves once it listens.
 */
export async function startDevClusterProcess(name, dir) {
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  const child = new ChildProcess(`devcluster ${name}`, ['devcluster', '--listen', '127.0.0.1:0', '--kubeconfig', kubeconfig]);
  const url = await child.waitForLine((line) => /^devcluster listening on (\S+)/.exec(line)?.[1], 30_000);
  return { name, url, kubeconfig, pid: child.pid, process: child, stop: () => child.stop() };
}

/**
 * Starts the real control plane (etcd + kube-apiserver built by `npm run kube-assets`, found
 * through VCSYNC_KUBE_ASSETS) as a host cluster, with the startup the tests use
 * (build/testbed/real-control-plane.js, built from testbed/), and resolves with the shape of
 * {@link startDevClusterProcess}: `kubeconfig` is the admin kubeconfig file, `stop()` stops every
 * process and removes its temp dir. Imported on demand: devcluster runs need no kube-assets.
 */
export async function startRealHost(name) {
  const { startRealControlPlane } = await import('../../build/testbed/real-control-plane.js');
  const plane = await startRealControlPlane();
  return { name, url: plane.url, kubeconfig: plane.kubeconfigPath, version: plane.assets.versions.kubernetes, startupMs: plane.startup.totalMs, stop: () => plane.close() };
}

/**
 * A vcluster.yaml with Endpoints sync on, EndpointSlices sync off and no patches: the translation
 * of Endpoints alone is measured (endpoints-fixtures.mjs' `syncConfig` writes it for either resource).
 */
export const PLAIN_CONFIG = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n    endpointSlices:\n      enabled: false\n';

/**
 * Starts `vcsync start` between two devcluster processes with leader election off and the host
 * rate limit given (`hostQps`/`hostBurst`). Resolves once its metrics endpoint listens; the
 * returned `synced` promise resolves (with its time, `performance.now()` of this process) when it
 * logs "caches synced, starting workers". `nodeArgs` go to node before the script (e.g. `--cpu-prof`).
 */
export async function startSyncerProcess({ dir, virtual, host, name, hostNamespace, hostQps, hostBurst, workers = 10, logLevel = 'info', config = PLAIN_CONFIG, nodeArgs = [] }) {
  const configPath = join(dir, 'vcluster.yaml');
  await writeFile(configPath, config);
  const args = [
    'start',
    '--config', configPath,
    '--name', name,
    '--host-namespace', hostNamespace,
    '--virtual-kubeconfig', virtual.kubeconfig,
    '--host-kubeconfig', host.kubeconfig,
    '--listen-metrics', '127.0.0.1:0',
    '--no-leader-elect',
    '--host-qps', String(hostQps),
    '--host-burst', String(hostBurst),
    '--workers', String(workers),
    '--log-level', logLevel,
  ];
  const spawnedAt = performance.now();
  const child = new ChildProcess('syncer', args, { nodeArgs });
  const message = (text) => (line) => {
    if (!line.includes(text)) return undefined;
    try {
      return { at: performance.now(), record: JSON.parse(line) };
    } catch {
      return undefined;
    }
  };
  const synced = child.waitForLine(message('caches synced, starting workers'), 600_000);
  synced.catch(() => {}); // observed by the caller when it needs it; stop() must not leave it unhandled
  const started = await child.waitForLine(message('vcsync started'), 60_000);
  return { pid: child.pid, spawnedAt, metricsUrl: started.record.metrics, synced, process: child, args, stop: () => child.stop() };
}

/**
 * VmRSS and VmHWM (peak RSS) of a Linux process, in bytes, and RSS split into anonymous memory
 * (the V8 heap, malloc, stacks: RssAnon) and file pages (the node binary and libraries: RssFile).
 */
export async function processMemory(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssBytes: field('VmRSS'), peakRssBytes: field('VmHWM'), rssAnonBytes: field('RssAnon'), rssFileBytes: field('RssFile') };
}

/** Scrapes `<metricsUrl>/metrics` into `{ 'name{labels}': value }`. */
export async function scrapeMetrics(metricsUrl) {
  const response = await fetch(`${metricsUrl}/metrics`);
  const text = await response.text();
  const values = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values[line.slice(0, space)] = Number(line.slice(space + 1));
  }
  return values;
}

/**
 * Starts the syncer-bulk baseline client (benchmarks/lib/baseline-client.mjs) in its own process
 * with `objects` (of `resourceType`, Endpoints by default) to POST to `hostNamespace` of `host`,
 * and resolves once its two watches (the virtual objects, the host objects matching
 * `hostLabelSelector`) are open. `run()` tells it to start and
 * resolves with what it measured: `{ seconds, postsDoneSeconds, cpuMicros, virtualEvents, hostEvents }`.
 */
export async function startBaselineProcess({ dir, label, virtual, host, resourceType = { version: 'v1', resource: 'endpoints' }, hostNamespace, hostLabelSelector, concurrency, objects, nodeArgs = [] }) {
  const inputPath = join(dir, `${label}.json`);
  await writeFile(inputPath, JSON.stringify({ virtualKubeconfig: virtual.kubeconfig, hostKubeconfig: host.kubeconfig, resourceType, hostNamespace, hostLabelSelector, concurrency, objects }));
  const child = new ChildProcess(label, [inputPath], { script: join(benchmarksDir, 'lib', 'baseline-client.mjs'), nodeArgs });
  const json = (key) => (line) => {
    try {
      const record = JSON.parse(line);
      return key in record ? record : undefined;
    } catch {
      return undefined;
    }
  };
  await child.waitForLine(json('ready'), 120_000);
  return {
    pid: child.pid,
    run: async () => {
      const done = child.waitForLine(json('cpuMicros'), 600_000);
      child.send('go');
      return done;
    },
    // It exits by itself after printing its figures; a SIGTERM then would lose its --cpu-prof profile.
    stop: async () => {
      if (!(await child.exitedWithin(10_000))) await child.stop();
    },
  };
}

let clockTicks;

/** User + system CPU time a Linux process has used so far, in µs (/proc/PID/stat, clock-tick resolution). */
export async function processCpuMicros(pid) {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / clockTicks) * 1e6;
}
