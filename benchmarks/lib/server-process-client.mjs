// The load generator's side of benchmarks/lib/auth-server-process.mjs, shared by the management
// benchmarks: start a server process and wait for its ready line, and build and check the
// pre-serialised requests (benchmarks/lib/raw-https-client.mjs) sent to it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { benchmarksDir } from './bench-run.mjs';
import { openConnections, serialiseRequest } from './raw-https-client.mjs';

/** Starts a server process; resolves with what it printed once listening, its pid and `stop()`. */
export async function startServer(args, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, join(benchmarksDir, 'lib', 'auth-server-process.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr = (stderr + text).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(JSON.parse(line)));
    void exited.then((code) => reject(new Error(`server ${args[0]} exited (${code}) before listening:\n${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { ...ready, pid: child.pid, stop };
}

/** One request over a fresh connection (setup, not measured). */
export async function once(server, request) {
  const [connection] = await openConnections(server.url, server.caCertPem, 1);
  try {
    return await connection.send(request);
  } finally {
    connection.close();
  }
}

/** `path` under the server's base path (the management API lives below `/kubernetes/management`). */
export function pathOf(server, path) {
  return `${new URL(server.url).pathname.replace(/\/$/, '')}${path}`;
}

/** A pre-serialised JSON request to `server`, with `Authorization: Bearer <token>` unless `token` is undefined. */
export function request(server, method, path, token, body) {
  const headers = { Accept: 'application/json' };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return serialiseRequest({ method, url: server.url, path: pathOf(server, path), headers, body });
}

/** Sends `req` once and throws, saying `what`, unless the answer has `status`; resolves with the answer. */
export async function expectStatus(server, req, status, what) {
  const answer = await once(server, req);
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status}: ${answer.body.toString('utf8').slice(0, 400)}`);
  return answer;
}
