import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionLimitsWithDefaults, guardConnections, type ConnectionCloseReason } from '../../../src/observe/connection-guard.js';

/** Holds the event loop for `ms`, as a large body parse or a long synchronous job does. */
function holdEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('guardConnections', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  });

  it('serves a head that arrived within the headers timeout even when the event loop was busy past it', async () => {
    const closed: ConnectionCloseReason[] = [];
    server = createServer((_request, response) => response.end('served'));
    guardConnections(server, connectionLimitsWithDefaults({ headersTimeoutMs: 100 }), { closed: (reason) => closed.push(reason) });
    // Registered after the guard: the guard's timer is armed, then the loop is held past it while the head arrives.
    server.once('connection', () => holdEventLoop(400));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/served$/);
    expect(closed).toEqual([]);
  });

  it('still closes a connection whose head never completes', async () => {
    const closed: ConnectionCloseReason[] = [];
    server = createServer((_request, response) => response.end('served'));
    guardConnections(server, connectionLimitsWithDefaults({ headersTimeoutMs: 100 }), { closed: (reason) => closed.push(reason) });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    expect(closed).toEqual(['headers_timeout']);
  });
});
