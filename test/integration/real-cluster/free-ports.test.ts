import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { candidateRanges, ephemeralPortRange, freePorts } from '../../../testbed/free-ports.js';

/** A loopback listener on the kernel's choice of port, and that port. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('a listening TCP server has no port');
  return { server, port: address.port };
}

describe('the ephemeral range and the candidates outside it', () => {
  it('reads the two numbers of ip_local_port_range, and falls back to Linux’s default on anything else', () => {
    expect(ephemeralPortRange(() => '32768\t60999\n')).toEqual({ low: 32768, high: 60999 });
    expect(ephemeralPortRange(() => '49152 65535')).toEqual({ low: 49152, high: 65535 });
    for (const text of ['', 'x y', '60999 32768', '0 100', '1024 70000', '1 2 3']) {
      expect(ephemeralPortRange(() => text), text).toEqual({ low: 32768, high: 60999 });
    }
    expect(
      ephemeralPortRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual({ low: 32768, high: 60999 });
  });

  it('draws below and above the range from 10 000, and leaves it to the kernel when fewer than 1 000 ports are left', () => {
    expect(candidateRanges({ low: 32768, high: 60999 })).toEqual([
      { low: 10000, high: 32767 },
      { low: 61000, high: 65535 },
    ]);
    expect(candidateRanges({ low: 49152, high: 65535 })).toEqual([{ low: 10000, high: 49151 }]);
    expect(candidateRanges({ low: 1024, high: 65535 })).toEqual([]);
    expect(candidateRanges({ low: 10200, high: 65500 })).toEqual([]);
    expect(candidateRanges({ low: 5000, high: 63000 })).toEqual([{ low: 63001, high: 65535 }]);
  });
});

describe('freePorts', () => {
  const held: Server[] = [];
  afterEach(async () => {
    await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('gives distinct ports outside the kernel’s ephemeral range, where no outgoing connection takes them', async () => {
    const { low, high } = ephemeralPortRange();
    const ports = await freePorts(16);
    expect(new Set(ports).size).toBe(16);
    for (const port of ports) {
      expect(port >= low && port <= high, `port ${port} is inside ${low}-${high}`).toBe(false);
      expect(port).toBeGreaterThanOrEqual(10_000);
    }
  });

  it('skips a port something listens on', async () => {
    const taken = await holdPort();
    held.push(taken.server);
    const [free] = await freePorts(1);
    if (free === undefined) throw new Error('no port');
    const ports = await freePorts(1, [
      { low: taken.port, high: taken.port },
      { low: free, high: free },
    ]);
    expect(ports).toEqual([free]);
  });

  it('says which ranges it tried when every candidate is taken', async () => {
    const taken = await holdPort();
    held.push(taken.server);
    await expect(freePorts(1, [{ low: taken.port, high: taken.port }])).rejects.toThrow(
      `no free loopback port: 201 random ports between ${taken.port}-${taken.port} were taken`,
    );
  });

  it('takes the kernel’s choice when there are no candidate ranges', async () => {
    const ports = await freePorts(3, []);
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) expect(port).toBeGreaterThan(0);
  });
});
