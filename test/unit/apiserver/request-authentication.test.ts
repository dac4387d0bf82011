import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { type PeerCertificate, TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { presentedCertificate } from '../../../src/apiserver/request-authentication.js';

/** A TLS connection whose handshake presented `certificate` (`{}`: none), counting the reads of it. */
function tlsConnection(certificate: Partial<PeerCertificate>, authorized: boolean): { socket: TLSSocket; reads: () => number } {
  let reads = 0;
  const socket = Object.create(TLSSocket.prototype) as TLSSocket;
  Object.defineProperty(socket, 'authorized', { value: authorized });
  Object.defineProperty(socket, 'getPeerCertificate', {
    value: () => {
      reads += 1;
      return structuredClone(certificate);
    },
  });
  return { socket, reads: () => reads };
}

const requestOn = (socket: Socket): IncomingMessage => ({ socket }) as IncomingMessage;

describe('presentedCertificate', () => {
  it('reads the certificate of a keep-alive connection once: its later requests get the same answer', () => {
    const connection = tlsConnection({ subject: { CN: 'dana', O: ['viewers', 'admins'] } as unknown as PeerCertificate['subject'] }, true);
    const first = presentedCertificate(requestOn(connection.socket));
    const second = presentedCertificate(requestOn(connection.socket));
    expect(first).toEqual({ authorized: true, commonName: 'dana', organizations: ['viewers', 'admins'] });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(connection.reads()).toBe(1);
  });

  it('a connection without a certificate is read once too, and each connection answers for itself', () => {
    const none = tlsConnection({}, false);
    expect(presentedCertificate(requestOn(none.socket))).toBeUndefined();
    expect(presentedCertificate(requestOn(none.socket))).toBeUndefined();
    expect(none.reads()).toBe(1);
    const untrusted = tlsConnection({ subject: { CN: 'mallory' } as unknown as PeerCertificate['subject'] }, false);
    expect(presentedCertificate(requestOn(untrusted.socket))).toEqual({ authorized: false, commonName: 'mallory', organizations: [] });
  });

  it('a plain TCP connection has no certificate', () => {
    expect(presentedCertificate(requestOn(new Socket()))).toBeUndefined();
  });
});
