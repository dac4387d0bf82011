import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the kernel hands out ports of its own (connect() without bind, listen on :0). */
export interface PortRange {
  low: number;
  high: number;
}

/** Linux's default, and what {@link ephemeralPortRange} assumes where it cannot read the range. */
const LINUX_DEFAULT_EPHEMERAL: PortRange = { low: 32768, high: 60999 };

/** Ports below this are left to system services. */
const LOWEST_CANDIDATE = 10_000;

/** Fewer candidates than this outside the kernel's range: fall back to the kernel's choice. */
const FEWEST_CANDIDATES = 1_000;

/** How many taken candidates {@link freePorts} skips before it gives up. */
const MAX_TAKEN = 200;

const LOOPBACK = '127.0.0.1';

/**
 * The kernel's ephemeral range, read from `/proc/sys/net/ipv4/ip_local_port_range` (two numbers);
 * Linux's default where that file is absent or says something else.
 */
export function ephemeralPortRange(read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')): PortRange {
  let text: string;
  try {
    text = read();
  } catch {
    return LINUX_DEFAULT_EPHEMERAL;
  }
  const match = /^\s*(\d+)\s+(\d+)\s*$/.exec(text);
  if (match === null) return LINUX_DEFAULT_EPHEMERAL;
  const low = Number(match[1]);
  const high = Number(match[2]);
  return low >= 1 && low <= high && high <= 65_535 ? { low, high } : LINUX_DEFAULT_EPHEMERAL;
}

/**
 * The ranges {@link freePorts} draws from: from 10 000 up to the kernel's ephemeral range and from
 * its end up to 65 535. Empty when they hold fewer than 1 000 ports together.
 */
export function candidateRanges(ephemeral: PortRange): PortRange[] {
  const ranges = [
    { low: LOWEST_CANDIDATE, high: ephemeral.low - 1 },
    { low: Math.max(LOWEST_CANDIDATE, ephemeral.high + 1), high: 65_535 },
  ].filter((range) => range.low <= range.high);
  return portCount(ranges) >= FEWEST_CANDIDATES ? ranges : [];
}

/** How many ports `ranges` hold together. */
function portCount(ranges: readonly PortRange[]): number {
  return ranges.reduce((sum, range) => sum + range.high - range.low + 1, 0);
}

/**
 * `count` distinct loopback ports that were free a moment ago, for a process that binds them
 * itself later (etcd, kube-apiserver, a daemon under test).
 *
 * A port the kernel chose (listen on :0, then close) is in its ephemeral range, the range it also
 * draws from for every outgoing connection on the machine; with tests opening thousands of them, a
 * port released for a second was now and then the source port of someone's connection by the
 * time kube-apiserver bound it ("bind: address already in use"). So the ports are drawn at random
 * outside that range, each checked by listening on it; only a machine whose ephemeral range leaves
 * no room gets the kernel's choice. Two callers drawing the same port at once remain possible,
 * rarely: startRealControlPlane starts again on fresh ports when a bind fails.
 */
export async function freePorts(count: number, ranges: readonly PortRange[] = candidateRanges(ephemeralPortRange())): Promise<number[]> {
  if (ranges.length === 0) return kernelPorts(count);
  const ports: number[] = [];
  let taken = 0;
  while (ports.length < count) {
    const port = randomPort(ranges);
    if (ports.includes(port)) continue;
    if (await canListen(port)) {
      ports.push(port);
    } else if (++taken > MAX_TAKEN) {
      throw new Error(`no free loopback port: ${taken} random ports between ${ranges.map((range) => `${range.low}-${range.high}`).join(' and ')} were taken`);
    }
  }
  return ports;
}

function randomPort(ranges: readonly PortRange[]): number {
  let offset = Math.floor(Math.random() * portCount(ranges));
  for (const range of ranges) {
    const width = range.high - range.low + 1;
    if (offset < width) return range.low + offset;
    offset -= width;
  }
  throw new Error('unreachable: the offset is below the ranges’ size');
}

/** Whether a listener could bind `port` on loopback just now (it is closed again before this resolves). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The kernel's choice: `count` listeners on :0, closed again. */
async function kernelPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, LOOPBACK, () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('a listening TCP server has no port');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
