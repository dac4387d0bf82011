import { connect, type Socket } from 'node:net';
import type { SeededRandom } from '../seeded-random.js';
import { replyProblem, sendFuzzRequest, type FuzzReply, type FuzzRequest } from './fuzz-request.js';

/**
 * The exhaustion classes of the HTTP fuzzer: a watch flood past the server's
 * watch caps, and connections that stall half-way through their request head. A server passes
 * when every watch is a 200 stream or a 429 Status with `Retry-After`, at most its cap stream at
 * once, a plain request and the probes still answer during both, and every stalled connection is
 * closed by the server within its head timeout (plus `graceMs`).
 */

/** The limits the fuzzed server was started with, which the classes check it keeps. */
export interface PressureLimits {
  maxWatchesPerUser: number;
  headersTimeoutMs: number;
}

/** What the pressure classes did and found. */
export interface PressureReport {
  /** Watches of the flood the server streamed, and those it refused with 429. */
  watchFlood: { accepted: number; refused: number };
  /** Stalled connections, and how many of them the server closed in time. */
  slowHeads: { opened: number; closed: number };
  problems: string[];
}

/** Options of {@link runPressureFuzz}. */
export interface PressureFuzzOptions {
  /** The server's base URL (plain HTTP). */
  baseUrl: string;
  /** Request headers of the flooding user (its credentials). */
  headers: Readonly<Record<string, string>>;
  limits: PressureLimits;
  random: SeededRandom;
  /** How long past the head timeout a stalled connection may stay open. Default 10 000 ms. */
  graceMs?: number;
}

const WATCH_PATHS = ['/api/v1/configmaps?watch=true', '/api/v1/namespaces/default/configmaps?watch=1', '/api/v1/namespaces?watch=true&allowWatchBookmarks=true', '/api/v1/namespaces/default/endpoints?watch=true&resourceVersion=0'];
const HEAD = 'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: fuzz\r\nAccept: application/json\r\nX-Padding: padding\r\n\r\n';

/** Opens a watch and keeps it open; resolves with the answer's start (a 200 stream stays open until `close`). */
function openWatch(baseUrl: string, path: string, headers: Readonly<Record<string, string>>): Promise<{ reply: FuzzReply; retryAfter: string | undefined; close: () => void }> {
  const url = new URL(path, baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const finish = (): void => {
      const text = received.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const header = (name: string): string | undefined => new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(text.slice(0, headEnd))?.[1];
      const body = received.subarray(headEnd + 4);
      // A refusal carries its Status with a Content-Length: wait for all of it.
      if (status !== 200 && body.length < Number(header('content-length') ?? 0)) return;
      socket.off('data', onData);
      resolve({ reply: { status, contentType: header('content-type') ?? '', body, connection: header('connection') ?? '', socket }, retryAfter: header('retry-after'), close: () => socket.destroy() });
    };
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      finish();
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`the connection of the watch ${path} closed before an answer`)));
    const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', ''];
    socket.write(lines.join('\r\n'));
  });
}

/** A connection that sends a random prefix of a request head and stalls; resolves when the server closes it. */
function stallHead(baseUrl: string, random: SeededRandom): { opened: Promise<void>; closed: Promise<void>; socket: Socket } {
  const url = new URL(baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.on('error', () => undefined); // a reset is a close too
  const prefix = HEAD.slice(0, random.int(HEAD.length - 4));
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  void opened.then(() => socket.write(prefix));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { opened, closed, socket };
}

async function stillServes(baseUrl: string, headers: Readonly<Record<string, string>>, when: string, problems: string[]): Promise<void> {
  for (const path of ['/readyz', '/livez', '/api/v1/namespaces/default/configmaps']) {
    const request: FuzzRequest = { index: -1, label: 'pressure:check', method: 'GET', path, headers };
    try {
      const reply = await sendFuzzRequest(baseUrl, request, 20_000);
      if (reply.status !== 200) problems.push(`${when}: GET ${path} answered ${reply.status}: ${reply.body.subarray(0, 200).toString('utf8')}`);
    } catch (error: unknown) {
      problems.push(`${when}: GET ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Runs the watch flood, then the slow heads, against a server started with `limits`. */
export async function runPressureFuzz(options: PressureFuzzOptions): Promise<PressureReport> {
  const { baseUrl, headers, limits, random } = options;
  const problems: string[] = [];
  const report: PressureReport = { watchFlood: { accepted: 0, refused: 0 }, slowHeads: { opened: 0, closed: 0 }, problems };
  const watches: Array<() => void> = [];
  try {
    const flood = limits.maxWatchesPerUser + 1 + random.int(limits.maxWatchesPerUser * 2);
    for (let index = 0; index < flood; index += 1) {
      const path = random.pick(WATCH_PATHS);
      const where = `watch flood #${index} GET ${path}`;
      try {
        const { reply, retryAfter, close } = await openWatch(baseUrl, path, headers);
        watches.push(close);
        if (reply.status === 200) {
          report.watchFlood.accepted += 1;
          continue;
        }
        report.watchFlood.refused += 1;
        const problem = replyProblem({ index, label: 'pressure:watch-flood', method: 'GET', path, headers }, reply);
        if (problem !== undefined) problems.push(`${where}: ${problem}`);
        if (reply.status !== 429) problems.push(`${where}: answered ${reply.status}, not 200 or 429`);
        else if (retryAfter === undefined || !/^\d+$/.test(retryAfter)) problems.push(`${where}: a 429 without a Retry-After of whole seconds`);
      } catch (error: unknown) {
        problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (report.watchFlood.accepted > limits.maxWatchesPerUser) problems.push(`the watch flood streamed ${report.watchFlood.accepted} watches at once, over the cap of ${limits.maxWatchesPerUser} per user`);
    if (report.watchFlood.refused === 0) problems.push(`none of ${flood} watches past the cap of ${limits.maxWatchesPerUser} was refused`);
    await stillServes(baseUrl, headers, 'during the watch flood', problems);
  } finally {
    for (const close of watches) close();
  }

  const stalled = Array.from({ length: 5 + random.int(20) }, () => stallHead(baseUrl, random));
  try {
    await Promise.all(stalled.map((connection) => connection.opened));
    report.slowHeads.opened = stalled.length;
    await stillServes(baseUrl, headers, 'during the slow heads', problems);
    const deadlineMs = limits.headersTimeoutMs + (options.graceMs ?? 10_000);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
    await Promise.all(
      stalled.map(async (connection, index) => {
        if ((await Promise.race([connection.closed.then(() => 'closed' as const), late])) === 'closed') report.slowHeads.closed += 1;
        else problems.push(`slow head #${index}: the server left the stalled connection open past ${deadlineMs} ms`);
      }),
    );
    clearTimeout(timer);
  } finally {
    for (const connection of stalled) connection.socket.destroy();
  }
  return report;
}
