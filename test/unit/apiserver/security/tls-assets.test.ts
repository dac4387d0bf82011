import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTlsAssets, issueClientCertificate } from '../../../../src/apiserver/security/tls-assets.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

describe('ensureTlsAssets', () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    for (const dir of dirs.splice(0)) {
      await rm(dir, { recursive: true, force: true });
    }
  });
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-tls-'));
    dirs.push(dir);
    return dir;
  }

  it('issues a CA, a serving certificate for local names and an admin client certificate', async () => {
    const dir = await tempDir();
    const assets = await ensureTlsAssets(dir, { hosts: ['api.vcsync.test', '10.1.2.3'] });
    const ca = new X509Certificate(assets.caCertPem);
    expect(ca.ca).toBe(true);
    expect(Date.parse(ca.validTo) - Date.now()).toBeGreaterThan(9.9 * 365 * 24 * 3600 * 1000);

    const server = new X509Certificate(assets.serverCertPem);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('::1')).toBeDefined();
    expect(server.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(server.checkIP('10.9.9.9')).toBeUndefined();
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkHost('api.vcsync.test')).toBe('api.vcsync.test');
    expect(server.checkHost('other.test')).toBeUndefined();
    expect(server.keyUsage).toEqual([SERVER_AUTH]);

    const admin = new X509Certificate(assets.adminCertPem);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(admin.subject.split('\n').sort()).toEqual(['CN=admin', 'O=system:masters']);
    expect(admin.keyUsage).toEqual([CLIENT_AUTH]);

    for (const keyPath of [assets.serverKeyPath, assets.adminKeyPath, join(dir, 'ca.key')]) {
      expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
    }
    expect(assets.caCertPath).toBe(join(dir, 'ca.crt'));
  });

  it('serves TLS that the admin certificate authenticates against', async () => {
    const assets = await ensureTlsAssets(await tempDir());
    const server = createServer(
      { cert: assets.serverCertPem, key: assets.serverKeyPem, ca: assets.caCertPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        const peer = socket.getPeerCertificate();
        res.end(JSON.stringify({ authorized: socket.authorized, cn: peer.subject?.CN, o: peer.subject?.O }));
      },
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', ca: assets.caCertPem, cert: assets.adminCertPem, key: assets.adminKeyPem },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body)).toEqual({ authorized: true, cn: 'admin', o: 'system:masters' });
  });

  it('reuses valid files, reissues only a serving certificate missing a host, and replaces a broken CA', async () => {
    const dir = await tempDir();
    const first = await ensureTlsAssets(dir);
    const second = await ensureTlsAssets(dir);
    expect(second).toEqual(first);

    const widened = await ensureTlsAssets(dir, { hosts: ['new.vcsync.test'] });
    expect(widened.caCertPem).toBe(first.caCertPem);
    expect(widened.adminCertPem).toBe(first.adminCertPem);
    expect(widened.serverCertPem).not.toBe(first.serverCertPem);
    expect(new X509Certificate(widened.serverCertPem).checkHost('new.vcsync.test')).toBe('new.vcsync.test');

    await writeFile(join(dir, 'ca.crt'), 'garbage');
    const replaced = await ensureTlsAssets(dir);
    expect(replaced.caCertPem).not.toBe(first.caCertPem);
    const ca = new X509Certificate(replaced.caCertPem);
    expect(new X509Certificate(replaced.serverCertPem).verify(ca.publicKey)).toBe(true);
    expect(new X509Certificate(replaced.adminCertPem).verify(ca.publicKey)).toBe(true);
  });
});

describe('issueClientCertificate', () => {
  it('mints a client certificate for a subject, signed by the CA, with the requested lifetime', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-tls-'));
    try {
      const assets = await ensureTlsAssets(dir);
      const before = Date.now();
      const issued = await issueClientCertificate(
        { certPem: assets.caCertPem, keyPem: assets.caKeyPem },
        { commonName: 'jane, the "dev" +;<>', organizations: ['dev', 'ops'] },
        3_600_000,
      );
      const certificate = new X509Certificate(issued.certPem);
      expect(certificate.verify(new X509Certificate(assets.caCertPem).publicKey)).toBe(true);
      expect(certificate.keyUsage).toEqual([CLIENT_AUTH]);
      // Node escapes RFC 4514 special characters when printing; the name itself is intact.
      expect(certificate.subject.split('\n')).toEqual(['CN=jane\\, the \\"dev\\" \\+\\;\\<\\>', 'O=dev', 'O=ops']);
      const lifetimeMs = Date.parse(certificate.validTo) - before;
      expect(lifetimeMs).toBeGreaterThan(3_600_000 - 2_000);
      expect(lifetimeMs).toBeLessThan(3_600_000 + 60_000);
      expect(issued.keyPem).toContain('BEGIN PRIVATE KEY');
      await expect(issueClientCertificate({ certPem: assets.caCertPem, keyPem: assets.caKeyPem }, { commonName: 'x' }, 0)).rejects.toThrow(
        RangeError,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
