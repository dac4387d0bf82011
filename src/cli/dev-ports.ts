import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { writeSecretFile } from '../management/index.js';

/**
 * The listeners of `vcsync dev` whose port is kept across restarts. The management URL is the
 * issuer of its tokens and the server of its kube configs, and the virtual cluster's URL is the
 * server of every kube config issued for it: a new port would leave all of them pointing nowhere.
 */
export const DEV_LISTENERS = ['management', 'virtual', 'host', 'metrics'] as const;

/** One listener of `vcsync dev`. */
export type DevListener = (typeof DEV_LISTENERS)[number];

/** The port each listener had (absent: none yet, an ephemeral port is chosen). */
export type DevPorts = Partial<Record<DevListener, number>>;

/** The file under the dev directory that keeps the ports. */
export const DEV_PORTS_FILE = 'ports.json';

/** The address every `vcsync dev` listener binds. */
export const DEV_LISTEN_HOST = '127.0.0.1';

const LABELS: Readonly<Record<DevListener, string>> = {
  management: 'the management API',
  virtual: 'the virtual cluster',
  host: 'the host cluster',
  metrics: 'the metrics endpoint',
};

/** Stable codes: `BadPortsFile` (the file is not what vcsync wrote), `PortTaken` (a kept port is in use). */
export type DevPortsErrorCode = 'BadPortsFile' | 'PortTaken';

/** Why `vcsync dev` cannot use its kept ports; the message says which file or port and what to do. */
export class DevPortsError extends Error {
  readonly code: DevPortsErrorCode;

  constructor(code: DevPortsErrorCode, message: string) {
    super(message);
    this.name = 'DevPortsError';
    this.code = code;
  }
}

/**
 * The ports in the text of a ports file (`file` names it in errors): a JSON object of listener
 * name → port 1–65535. Refuses anything else, naming the field, so that a hand-edited file never
 * silently moves a listener.
 */
export function parseDevPorts(text: string, file: string): DevPorts {
  const bad = (what: string): DevPortsError => new DevPortsError('BadPortsFile', `${file}: ${what}; fix it, or delete the file to pick new ports (tokens and kube configs issued before then stop working)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error: unknown) {
    throw bad(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('expected an object of listener name to port');
  const ports: DevPorts = {};
  for (const [name, port] of Object.entries(parsed)) {
    if (!(DEV_LISTENERS as readonly string[]).includes(name)) throw bad(`.${name}: unknown listener (known: ${DEV_LISTENERS.join(', ')})`);
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) throw bad(`.${name}: ${JSON.stringify(port)} is not a port (an integer 1-65535)`);
    ports[name as DevListener] = port;
  }
  return ports;
}

/** The text {@link parseDevPorts} reads back. */
export function formatDevPorts(ports: DevPorts): string {
  const ordered: DevPorts = {};
  for (const name of DEV_LISTENERS) if (ports[name] !== undefined) ordered[name] = ports[name];
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The ports kept under `dir` ({} when there is no file yet). */
export async function readDevPorts(dir: string): Promise<DevPorts> {
  const file = join(dir, DEV_PORTS_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error: unknown) {
    if ((error as { code?: unknown }).code === 'ENOENT') return {};
    throw error;
  }
  return parseDevPorts(text, file);
}

/** Keeps `ports` under `dir` (written whole, atomically). */
export async function writeDevPorts(dir: string, ports: DevPorts): Promise<void> {
  await writeSecretFile(join(dir, DEV_PORTS_FILE), formatDevPorts(ports));
}

/** Whether `port` of {@link DEV_LISTEN_HOST} can be listened on right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: DEV_LISTEN_HOST, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Checks that every kept port is free before anything starts, and throws one
 * {@link DevPortsError} `PortTaken` naming each taken port, what it served and the two ways on:
 * stop what holds it, or start with `--new-ports` (which ends the tokens and kube configs issued
 * for the old addresses).
 */
export async function assertDevPortsFree(ports: DevPorts, file: string): Promise<void> {
  const taken: string[] = [];
  for (const name of DEV_LISTENERS) {
    const port = ports[name];
    if (port !== undefined && !(await portFree(port))) taken.push(`${DEV_LISTEN_HOST}:${port} (${LABELS[name]})`);
  }
  if (taken.length === 0) return;
  throw new DevPortsError(
    'PortTaken',
    `vcsync dev keeps its ports (${file}) so that the tokens and kube configs it issued keep working, but ${taken.join(', ')} ${taken.length === 1 ? 'is' : 'are'} in use. ` +
      'Stop the process holding it (e.g. `lsof -i :PORT` or `ss -ltnp` shows which), or start with --new-ports to pick new ports: tokens and token-mode kube configs issued before then stop working.',
  );
}
