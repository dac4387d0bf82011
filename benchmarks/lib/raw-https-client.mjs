// The leanest load generator this machine allows: keep-alive TLS connections (node:tls) that write
// pre-serialised HTTP/1.1 requests and read each answer by its Content-Length, one request in
// flight per connection. Parsing stays minimal so that the client's CPU, which shares the cores
// with the server under test, is as small as it can be; it is measured (process.cpuUsage) and the
// server's is read from /proc so both can be reported.
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';

/** A pre-serialised request: `method path` with `headers` and an optional body, as bytes. */
export function serialiseRequest({ method = 'GET', url, path, headers = {}, body }) {
  const target = new URL(url);
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${target.host}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (payload !== undefined) lines.push(`Content-Length: ${payload.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  return payload === undefined ? head : Buffer.concat([head, payload]);
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One keep-alive TLS connection; {@link send} resolves with `{ status, body }` (body a Buffer). */
class Connection {
  #socket;
  #buffer = Buffer.alloc(0);
  #pending;
  #failure;

  constructor(socket) {
    this.#socket = socket;
    socket.on('data', (chunk) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
    const fail = (error) => {
      this.#failure = error ?? new Error('the server closed the connection');
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.reject(this.#failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(undefined));
  }

  send(request) {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#socket.write(request);
    });
  }

  #drain() {
    const end = this.#buffer.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.#buffer.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (length === null) {
      this.#pending?.reject(new Error(`the answer has no Content-Length (chunked answers are not read here):\n${head}`));
      this.#pending = undefined;
      this.#socket.destroy();
      return;
    }
    const total = end + HEADER_END.length + Number(length[1]);
    if (this.#buffer.length < total) return;
    const body = this.#buffer.subarray(end + HEADER_END.length, total);
    this.#buffer = this.#buffer.subarray(total);
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve({ status, body });
  }

  close() {
    this.#socket.destroy();
  }
}

/** Opens `count` keep-alive TLS connections to `url` trusting `caCertPem`. */
export async function openConnections(url, caCertPem, count) {
  const target = new URL(url);
  const open = () =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: target.hostname, port: Number(target.port), ca: caCertPem, servername: undefined }, () => {
        socket.setNoDelay(true);
        resolve(new Connection(socket));
      });
      socket.once('error', reject);
    });
  const connections = [];
  for (let index = 0; index < count; index += 1) connections.push(await open());
  return connections;
}

/** CPU seconds (user + system) a Linux process has used so far, from /proc/<pid>/stat. */
export function processCpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks (100 Hz on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Sends requests on every connection back to back for `warmupMs` (not recorded), then for
 * `durationMs`: connection i sends `requestFor(i, n)` as its n-th request. Every answer must have
 * status `expect`. Returns requests/s, p50/p99 latency (ms), the CPU share (1 = one core) of this
 * process and of `serverPid` during the measured window, and the server's CPU time per request
 * (µs; 10 ms ticks, so meaningful over seconds): on a shared machine it varies less than req/s.
 * `otherPids` (`{ name: pid }`, e.g. a cluster the server calls) adds `otherCpuUsPerRequest`, the
 * CPU time per request of each of those processes in the same window.
 */
export async function runLoad({ connections, requestFor, warmupMs, durationMs, expect = 200, serverPid, otherPids = {} }) {
  const latencies = [];
  let recording = false;
  let stopped = false;
  const worker = async (connection, index) => {
    for (let n = 0; !stopped; n += 1) {
      const started = performance.now();
      const answer = await connection.send(requestFor(index, n));
      if (answer.status !== expect) throw new Error(`expected ${expect}, got ${answer.status}: ${answer.body.toString('utf8').slice(0, 400)}`);
      if (recording && !stopped) latencies.push(performance.now() - started);
    }
  };
  const running = Promise.all(connections.map(worker));
  let failed;
  running.catch((error) => {
    failed = error;
  });
  const wait = (ms) => Promise.race([new Promise((resolve) => setTimeout(resolve, ms)), running]);
  await wait(warmupMs);
  if (failed !== undefined) throw failed;
  recording = true;
  const started = performance.now();
  const clientCpu = process.cpuUsage();
  const serverCpu = serverPid !== undefined ? processCpuSeconds(serverPid) : undefined;
  const otherCpu = Object.fromEntries(Object.entries(otherPids).map(([name, pid]) => [name, processCpuSeconds(pid)]));
  await wait(durationMs);
  const elapsedMs = performance.now() - started;
  const clientUsed = process.cpuUsage(clientCpu);
  const serverUsed = serverPid !== undefined ? processCpuSeconds(serverPid) - serverCpu : undefined;
  const otherUsed = Object.entries(otherPids).map(([name, pid]) => [name, processCpuSeconds(pid) - otherCpu[name]]);
  stopped = true;
  await running;
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))];
  return {
    requests: latencies.length,
    elapsedMs,
    requestsPerSecond: (latencies.length / elapsedMs) * 1000,
    p50Ms: at(50),
    p99Ms: at(99),
    clientCpuShare: (clientUsed.user + clientUsed.system) / 1000 / elapsedMs,
    ...(serverUsed !== undefined ? { serverCpuShare: (serverUsed * 1000) / elapsedMs, serverCpuUsPerRequest: (serverUsed * 1e6) / latencies.length } : {}),
    ...(otherUsed.length > 0 ? { otherCpuUsPerRequest: Object.fromEntries(otherUsed.map(([name, used]) => [name, (used * 1e6) / latencies.length])) } : {}),
  };
}
