import http from 'node:http';
import https from 'node:https';
import type { ConformanceCase, Step } from './cases.js';
import { normalizeOutcome, normalizeValue, type Outcome, type WatchEventOutcome } from './normalize.js';

/** One API server under test: its URL and, for HTTPS, the admin's client certificate and the CA. */
export interface Backend {
  readonly name: string;
  readonly url: string;
  readonly tls?: { ca: string; cert: string; key: string };
}

/** What one compared step answered, normalised. */
export interface StepRecord {
  step: string;
  outcome: Outcome | { status: number; events: WatchEventOutcome[] };
}

/** The namespace a case runs in: unique per case, the same name on both backends. */
export function caseNamespace(index: number): string {
  return `conf-${index}`;
}

/** How long a `until` step keeps retrying before it records what it last saw, in ms. */
const UNTIL_TIMEOUT_MS = 15_000;
/** Extra time a watch gets beyond its `timeoutSeconds` before the client gives up, in ms. */
const WATCH_GRACE_MS = 5_000;

/**
 * Runs `testCase` against `backend`: creates the case namespace (unless `clusterScoped`), then
 * every step in order, substituting `{ns}` and saved `{variables}` in paths and bodies. Returns
 * the normalised answers of the steps that are compared (not `setup` ones).
 */
export async function runCase(backend: Backend, testCase: ConformanceCase, index: number): Promise<StepRecord[]> {
  const vars = new Map<string, string>([['ns', caseNamespace(index)]]);
  if (testCase.namespace !== false) {
    await send(backend, { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: caseNamespace(index) } } });
  }
  const records: StepRecord[] = [];
  for (const [stepIndex, step] of testCase.steps.entries()) {
    const resolved = substitute(step, vars);
    const label = `${step.method ?? 'GET'} ${step.path}${step.watch !== undefined ? ' (watch)' : ''} #${stepIndex}`;
    if (step.watch !== undefined) {
      const watched = await watch(backend, resolved.path, step.watch.events, step.watch.timeoutSeconds ?? 2, step.headers);
      const options = { strict: testCase.strict === true };
      const events = watched.events.map((event) => {
        const object = normalizeValue(event.object, options);
        return { type: event.type, object: project(step, object) };
      });
      if (step.setup !== true) records.push({ step: label, outcome: { status: watched.status, events } });
      continue;
    }
    let answer = await send(backend, resolved);
    if (step.until !== undefined) {
      const deadline = Date.now() + UNTIL_TIMEOUT_MS;
      while (answer.status !== step.until && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100)); // polling interval of a condition with a deadline
        answer = await send(backend, resolved);
      }
    }
    if (step.save !== undefined) {
      const parsed = safeParse(answer.text) as { metadata?: { resourceVersion?: string; name?: string; uid?: string; continue?: string } } | undefined;
      vars.set(step.save, parsed?.metadata?.resourceVersion ?? '');
      if (parsed?.metadata?.name !== undefined) vars.set(`${step.save}Name`, parsed.metadata.name);
      vars.set(`${step.save}Uid`, parsed?.metadata?.uid ?? '');
      vars.set(`${step.save}Continue`, encodeURIComponent(parsed?.metadata?.continue ?? ''));
    }
    if (step.setup === true) continue;
    const options = { keepMessage: step.keepMessage === true, strict: testCase.strict === true };
    const outcome = normalizeOutcome(answer.status, answer.text, options);
    // Projections read the normalised body, so they never see values that differ by design.
    if (outcome.body !== null && typeof outcome.body === 'object') outcome.body = project(step, outcome.body);
    records.push({ step: label, outcome });
  }
  return records;
}

/** The step's projection of `body`; the whole body when there is none or it does not fit (e.g. a Status). */
function project(step: Step, body: unknown): unknown {
  if (step.pick === undefined) return body;
  try {
    return step.pick(body);
  } catch {
    return body;
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function substitute(step: Step, vars: ReadonlyMap<string, string>): Step {
  const replace = (text: string): string => text.replace(/\{(\w+)\}/g, (whole, name: string) => vars.get(name) ?? whole);
  const body = step.body === undefined ? undefined : typeof step.body === 'string' ? replace(step.body) : (JSON.parse(replace(JSON.stringify(step.body))) as unknown);
  return { ...step, path: replace(step.path), ...(body !== undefined ? { body } : {}) };
}

function requestOptions(backend: Backend, method: string, path: string, headers: Record<string, string>): https.RequestOptions {
  const url = new URL(path, backend.url);
  return {
    method,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    headers,
    // A fresh connection per request: reusing a keep-alive socket the server is closing fails as "socket hang up".
    agent: false,
    ...(backend.tls !== undefined ? { ca: backend.tls.ca, cert: backend.tls.cert, key: backend.tls.key } : {}),
  };
}

function transport(backend: Backend): typeof https.request {
  return backend.url.startsWith('https:') ? https.request : (http.request as unknown as typeof https.request);
}

/** Sends one request; resolves with the status and the body text. */
export function send(backend: Backend, step: Pick<Step, 'method' | 'path' | 'body' | 'contentType' | 'headers'>): Promise<{ status: number; text: string }> {
  const body = step.body === undefined ? undefined : typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
  const headers: Record<string, string> = { accept: 'application/json', ...step.headers };
  if (body !== undefined) {
    if (step.contentType !== '') headers['content-type'] = step.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const request = transport(backend)(requestOptions(backend, step.method ?? 'GET', step.path, headers), (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Opens a watch (`watch=true&timeoutSeconds=…` are added) and reads events until `count` arrived,
 * the server ended the stream, or `timeoutSeconds` plus a grace passed. A non-200 answer is one
 * pseudo-event of type `HTTP` carrying the body.
 */
function watch(backend: Backend, path: string, count: number, timeoutSeconds: number, extraHeaders: Record<string, string> = {}): Promise<{ status: number; events: { type: string; object: unknown }[] }> {
  const separator = path.includes('?') ? '&' : '?';
  const full = `${path}${separator}watch=true&timeoutSeconds=${timeoutSeconds}`;
  return new Promise((resolve, reject) => {
    const events: { type: string; object: unknown }[] = [];
    let status = 0;
    let buffer = '';
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ status, events });
    };
    const timer = setTimeout(finish, timeoutSeconds * 1000 + WATCH_GRACE_MS);
    const request = transport(backend)(requestOptions(backend, 'GET', full, { accept: 'application/json', ...extraHeaders }), (response) => {
      status = response.statusCode ?? 0;
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        if (status !== 200) return;
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line !== '') events.push(JSON.parse(line) as { type: string; object: unknown });
          if (events.length >= count) return finish();
          newline = buffer.indexOf('\n');
        }
      });
      response.on('end', () => {
        if (status !== 200) events.push({ type: 'HTTP', object: safeParse(buffer) ?? buffer });
        finish();
      });
      response.on('error', () => finish());
    });
    request.on('error', (err) => {
      if (!done) reject(err);
    });
    request.end();
  });
}
