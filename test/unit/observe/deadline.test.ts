import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { setDeadline } from '../../../src/observe/deadline.js';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A connected pair of sockets over loopback. */
async function socketPair(): Promise<{ server: Socket; client: Socket }> {
  const listener: Server = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const address = listener.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect(address.port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  stops.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { server, client };
}

/** Keeps this process busy for `ms`, as a burst of work or a long collection does. */
function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

/**
 * The process is busy past the deadline while the answer arrives: which one this process sees
 * first when it next turns its event loop.
 */
async function firstSeen(arm: (expire: () => void, ms: number) => void): Promise<'answer' | 'deadline'> {
  const { server, client } = await socketPair();
  let answered = false;
  client.on('data', () => {
    answered = true;
  });
  const seen = new Promise<'answer' | 'deadline'>((resolve) => {
    arm(() => resolve(answered ? 'answer' : 'deadline'), 20);
  });
  server.write('the answer, in time');
  busyFor(150);
  return seen;
}

describe('setDeadline', () => {
  it('lets an answer that arrived while the process was busy past the deadline be read before the deadline is decided', async () => {
    expect(await firstSeen((expire, ms) => setDeadline(expire, ms))).toBe('answer');
  });

  it('is needed: a plain timer decides before the answer is read', async () => {
    expect(await firstSeen((expire, ms) => setTimeout(expire, ms))).toBe('deadline');
  });

  it('fires on an idle process, and not once cleared', async () => {
    const fired = await new Promise<boolean>((resolve) => {
      setDeadline(() => resolve(true), 5);
    });
    expect(fired).toBe(true);
    let cleared = false;
    clearTimeout(setDeadline(() => (cleared = true), 5));
    await new Promise<void>((resolve) => setDeadline(resolve, 30));
    expect(cleared).toBe(false);
  });
});
