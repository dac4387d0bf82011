import { once } from 'node:events';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startDevclusterProcess, stopProcess, type DevclusterProcess } from '../../support/devcluster-process.js';
import { answerBody, sendRawBody } from '../../support/raw-body-client.js';
import { assertBuilt } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

// Bad bodies go to a devcluster in its own process: a body that aborts the server (as 100,000 `[`
// sent as YAML did) then fails these tests instead of killing the test worker.

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const MiB = 1024 * 1024;

let server: DevclusterProcess | undefined;

async function running(): Promise<DevclusterProcess> {
  if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) return server;
  assertBuilt(['src/apiserver', 'src/apiserver/security', 'src/devcluster', 'src/devcluster/storage', 'src/cli']);
  server = await startDevclusterProcess(['--listen', '127.0.0.1:0']);
  return server;
}

beforeEach(async () => {
  await running();
});
afterAll(async () => {
  if (server !== undefined) await stopProcess(server.child);
});

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
}

async function post(contentType: string, body: string, path = CONFIGMAPS): Promise<Answer> {
  const { url } = await running();
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

/**
 * Sends each request on one connection: its head and `body` bytes, then, once its answer has
 * arrived, `rest` more bytes of the body. Resolves with the status of every answer, in order
 * (fewer when the server closed the connection first).
 */
async function keepAliveExchange(url: string, requests: readonly { head: string; body: number; rest: number }[]): Promise<number[]> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  await once(socket, 'connect');
  let received = '';
  const statuses = (): number[] => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
  socket.on('data', (data: Buffer) => {
    received += data.toString('latin1');
  });
  // A connection the server closed shows as fewer answers.
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  try {
    for (const [index, request] of requests.entries()) {
      socket.write(request.head);
      socket.write(Buffer.alloc(request.body, 'x'));
      await waitFor(`answer ${index + 1}`, () => statuses().length > index || socket.destroyed);
      if (request.rest > 0) socket.write(Buffer.alloc(request.rest, 'x'));
    }
    return statuses();
  } finally {
    socket.end();
    await closed;
  }
}

/**
 * Sends one request through `agent` (a Node client keeping connections alive): `body` whole with
 * its length, or in 64 KiB chunked pieces when `chunked`. Resolves with the answer's status and
 * head, and the connection it came on.
 */
function agentRequest(agent: Agent, url: string, method: string, path: string, body?: { bytes: number; chunked?: boolean }): Promise<{ status: number; headers: IncomingHttpHeaders; connection: Socket | null }> {
  return new Promise((resolve, reject) => {
    // Node's client frames a GET's body only when told to.
    const headers = body === undefined ? {} : { 'content-type': 'application/json', ...(body.chunked === true ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.bytes) }) };
    const outgoing = httpRequest(`${url}${path}`, { agent, method, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, connection: outgoing.socket }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    if (body === undefined) outgoing.end();
    else if (body.chunked !== true) outgoing.end(Buffer.alloc(body.bytes, 'x'));
    else {
      for (let offset = 0; offset < body.bytes; offset += 64 * 1024) outgoing.write(Buffer.alloc(Math.min(64 * 1024, body.bytes - offset), 'x'));
      outgoing.end();
    }
  });
}

/** The server still answers, and its process has not died (a V8 abort would show on stderr). */
async function expectStillServing(): Promise<void> {
  const current = server;
  if (current === undefined) throw new Error('no devcluster started');
  const health = await fetch(`${current.url}/healthz`).catch((error: unknown) => error);
  expect(current.child.exitCode, current.stderr()).toBeNull();
  expect(current.child.signalCode, current.stderr()).toBeNull();
  expect(health instanceof Response ? health.status : String(health)).toBe(200);
}

function expectStatus(answer: Answer, code: 400 | 413, message: string): void {
  const reason = code === 400 ? 'BadRequest' : 'RequestEntityTooLarge';
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(code);
  expect(answer.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code });
  expect(answer.body.message).toContain(message);
}

function configMapYaml(name: string, rest = ''): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;
}

/** Nine anchors, each a list of nine aliases of the one before: 9^9 "lol"s when expanded. */
function billionLaughs(): string {
  const lines = [`a: &a [${Array(9).fill('lol').join(', ')}]`];
  for (const [index, name] of [...'bcdefghi'].entries()) lines.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
  return configMapYaml('laughs', `${lines.join('\n')}\n`);
}

describe('bodies past the limits are refused with a Status before they are parsed, and the server stays up', () => {
  it('answers 400 to 100,000 `[` sent as YAML, every time (the second used to abort the process)', async () => {
    const answers: (Answer | unknown)[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) answers.push(await post('application/yaml', '['.repeat(100_000)).catch((error: unknown) => error));
    await expectStillServing();
    for (const answer of answers) expectStatus(answer as Answer, 400, 'more than 100 levels deep (at line 1, column 101); the limit is 100 levels');
  });

  it('answers 400 to the same body sent as JSON, naming the nesting limit', async () => {
    expectStatus(await post('application/json', '['.repeat(100_000)), 400, 'more than 100 levels deep (at line 1, column 101); the limit is 100 levels');
    await expectStillServing();
  });

  it('answers 400, not 500, to valid JSON nested 100,000 deep', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expectStatus(await post('application/json', deep), 400, 'more than 100 levels deep');
    const deepObjects = `{"metadata":{"name":"deep","annotations":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}}`;
    expectStatus(await post('application/json', deepObjects), 400, 'more than 100 levels deep');
    await expectStillServing();
  });

  it('answers 400 to YAML nested deeper than 100 levels in block style', async () => {
    const keys = Array.from({ length: 150 }, (_, level) => `${' '.repeat(level + 1)}k${level}:`).join('\n');
    expectStatus(await post('application/yaml', configMapYaml('block', `extra:\n${keys} deepest\n`)), 400, 'more than 100 levels deep');
    await expectStillServing();
  });

  it('answers 400 to a YAML alias bomb, naming the alias limit', async () => {
    expectStatus(await post('application/yaml', billionLaughs()), 400, 'may be expanded at most 100 times');
    const manyAliases = configMapYaml('aliases', `anchor: &x 1\nextra: [${Array(101).fill('*x').join(', ')}]\n`);
    expectStatus(await post('application/yaml', manyAliases), 400, 'more than 100 aliases');
    await expectStillServing();
  });

  it('answers 400, not 500, to YAML whose aliases make it contain itself', async () => {
    const cycle = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cycle, annotations: &a {x: *a}}\n`;
    expectStatus(await post('application/yaml', cycle), 400, 'or make it contain itself');
    await expectStillServing();
  });

  it('answers 413 to every body past 3 MiB, however large, and the client reads it (the connection was reset under clients still writing)', async () => {
    // Answered before the body is read: a server that then closed at once reset the connection
    // under fetch, which lost the answer (EPIPE) in about half of these.
    for (const size of [3 * MiB, 3 * MiB, 3 * MiB, 8 * MiB, 8 * MiB, 20 * MiB, 20 * MiB]) {
      expectStatus(await post('application/yaml', configMapYaml('huge', `data:\n  a: ${'x'.repeat(size)}\n`)), 413, `limit is ${3 * MiB} bytes`);
    }
    const chunked = Buffer.from(configMapYaml('chunked', `data:\n  a: ${'x'.repeat(20 * MiB)}\n`));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const { url } = await running();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < chunked.length; offset += 64 * 1024) controller.enqueue(chunked.subarray(offset, offset + 64 * 1024));
          controller.close();
        },
      });
      const response = await fetch(`${url}${CONFIGMAPS}`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: stream, duplex: 'half' } as RequestInit);
      expectStatus({ status: response.status, body: await response.json() }, 413, `limit is ${3 * MiB} bytes`);
    }
    await expectStillServing();
  });

  it('reads at most 4 MiB more of an oversized body, and holds its connection at most 5 s', async () => {
    const { url } = await running();
    // A client that would send 1 GiB as fast as it can: answered, then cut once the server has
    // dropped 4 MiB and lingered.
    const endless = await sendRawBody({ url }, { path: CONFIGMAPS, contentType: 'application/json', declaredBytes: 1024 * MiB, sendBytes: 1024 * MiB });
    expect(endless.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(answerBody(endless.received)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect(endless.error, `${endless.bytesWritten} bytes written`).toBeDefined();
    expect(endless.bytesWritten).toBeLessThan(64 * MiB);
    // A client that trickles 16 KiB every 100 ms (10 MiB would take a minute): cut by the clock.
    const trickle = await sendRawBody({ url }, { path: CONFIGMAPS, contentType: 'application/json', declaredBytes: 10 * MiB, sendBytes: 10 * MiB, chunkBytes: 16 * 1024, paceMs: 100 });
    expect(trickle.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(trickle.bytesWritten).toBeLessThan(10 * MiB);
    expect(trickle.closedAfterMs).toBeLessThan(30_000);
    // A body just past the limit, written whole: read to its end, then the connection closes cleanly.
    const whole = await sendRawBody({ url }, { path: CONFIGMAPS, contentType: 'application/json', declaredBytes: 3 * MiB + 1, sendBytes: 3 * MiB + 1 });
    expect(whole.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(whole).toMatchObject({ error: undefined, bytesWritten: 3 * MiB + 1 });
    await expectStillServing();
  });

  it('reads at most 4 MiB of a body its answer did not need (a GET that carries one), and holds the connection at most 5 s', async () => {
    const { url } = await running();
    // Answered from the head; Node's server alone would go on reading (and dropping) all of it.
    const endless = await sendRawBody({ url }, { method: 'GET', path: CONFIGMAPS, contentType: 'application/json', declaredBytes: 1024 * MiB, sendBytes: 256 * MiB });
    expect(endless.bytesWritten).toBeLessThan(64 * MiB);
    expect(endless.received).toMatch(/^HTTP\/1\.1 200 [^]*"kind":"ConfigMapList"/);
    // 16 KiB every 100 ms: 2 MiB would take 13 s. Cut 5 s after the answer.
    const trickle = await sendRawBody({ url }, { method: 'GET', path: CONFIGMAPS, contentType: 'application/json', declaredBytes: 2 * MiB, sendBytes: 2 * MiB, chunkBytes: 16 * 1024, paceMs: 100 });
    expect(trickle.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(trickle.bytesWritten).toBeLessThan(2 * MiB);
    expect(trickle.closedAfterMs).toBeLessThan(10_000);
    await expectStillServing();
  });

  it('keeps the connection of a body that was still arriving after the answer, when it ends within the bound', async () => {
    const { url } = await running();
    const answers = await keepAliveExchange(url, [
      // Answered before its second half is sent; the rest follows, then the next request.
      { head: `GET ${CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n`, body: MiB / 2, rest: MiB / 2 },
      { head: 'GET /version HTTP/1.1\r\nHost: x\r\n\r\n', body: 0, rest: 0 },
    ]);
    expect(answers).toEqual([200, 200]);
  });

  it('answers `Connection: close` when a body its answer did not need may not end within the bound, so no client reuses a connection about to close', async () => {
    const { url } = await running();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // 4 MiB and 103 bytes (as the devcluster fuzzer's 4 MiB ConfigMap): the answer used to offer
      // the connection, which the server closed after reading 4 MiB, under the client's next request.
      for (const body of [{ bytes: 4 * MiB + 103 }, { bytes: 8 * MiB }, { bytes: 300, chunked: true }, { bytes: 5 * MiB, chunked: true }]) {
        const answer = await agentRequest(agent, url, 'GET', CONFIGMAPS, body);
        expect({ body, status: answer.status, connection: answer.headers.connection }).toEqual({ body, status: 200, connection: 'close' });
        const next = await agentRequest(agent, url, 'GET', CONFIGMAPS);
        expect({ after: body, status: next.status, sameConnection: next.connection === answer.connection }).toEqual({ after: body, status: 200, sameConnection: false });
      }
      // A declared length within the bound keeps the connection for the next request.
      const kept = await agentRequest(agent, url, 'GET', CONFIGMAPS, { bytes: 4 * MiB });
      expect(kept.headers.connection).toBe('keep-alive');
      const next = await agentRequest(agent, url, 'GET', CONFIGMAPS);
      expect({ status: next.status, sameConnection: next.connection === kept.connection }).toEqual({ status: 200, sameConnection: true });
    } finally {
      agent.destroy();
    }
    await expectStillServing();
  });

  it('answers 400 to YAML of more than 10,000 tokens or 100,000 lines, asking for JSON', async () => {
    const manyKeys = Array.from({ length: 3000 }, (_, index) => `  k${index}: v`).join('\n');
    expectStatus(await post('application/yaml', configMapYaml('tokens', `data:\n${manyKeys}\n`)), 400, 'more than 10000 tokens; the limit is 10000');
    const manyLines = configMapYaml('lines', `data:\n  a: |\n    x\n${'\n'.repeat(150_000)}    y\n`);
    expectStatus(await post('application/yaml', manyLines), 400, 'more than 100000 lines; the limit is 100000: send a large object as JSON');
    await expectStillServing();
  });
});

describe('bodies just under the limits still work', () => {
  it('reads a body of nearly 3 MiB, as YAML and as JSON: past 1.5 MiB the object is refused 413 naming the object limit, under it created', async () => {
    const value = 'x'.repeat(3 * MiB - 1024);
    const yaml = await post('application/yaml', configMapYaml('big-yaml', `data:\n  a: ${value}\n`));
    expect(yaml.status, JSON.stringify(yaml.body).slice(0, 300)).toBe(413);
    expect(yaml.body.message).toMatch(/ConfigMap "big-yaml" would be \d+ bytes as JSON, more than 1572864 bytes \(1\.5 MiB\)/);
    const json = await post('application/json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big-json' }, data: { a: value } }));
    expect(json.status, JSON.stringify(json.body).slice(0, 300)).toBe(413);
    const fits = 'x'.repeat(1.5 * MiB - 2048);
    const created = await post('application/json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fits-json' }, data: { a: fits } }));
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    expect(created.body.data.a).toHaveLength(fits.length);
  });

  it('accepts bodies nested exactly 100 levels deep, with aliases, as YAML and as JSON', async () => {
    // The object is level 1 and `extra` level 2: 98 more arrays make 100.
    const nested = `${'['.repeat(98)}${']'.repeat(98)}`;
    const json = await post('application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nested-json"},"extra":[${nested}]}`);
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    const yaml = await post('application/yaml', configMapYaml('nested-yaml', `data: &d {a: b}\nextra: [${nested}]\nalso: *d\n`));
    expect(yaml.status, JSON.stringify(yaml.body)).toBe(201);
  });
});
