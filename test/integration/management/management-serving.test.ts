import { X509Certificate } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTlsAssets } from '../../../src/apiserver/security/tls-assets.js';
import { startManagementServer } from '../../../src/management/index.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { ManagementFixture } from '../../support/management-fixture.js';
import { MapStorage } from '../../support/map-storage.js';
import { waitFor } from '../../support/wait-for.js';

/** The fingerprint of the certificate the server presents now. */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

describe('management serving', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('reloads the serving certificate when its files change, without a restart', async () => {
    const before = await servedFingerprint(fixture.server.port, fixture.tls.caCertPem);
    await rm(fixture.tls.serverCertPath);
    const renewed = await ensureTlsAssets(`${fixture.dir}/tls`, { serverName: 'vcsync-management' });
    const expected = new X509Certificate(renewed.serverCertPem).fingerprint256;
    expect(expected).not.toBe(before);
    await waitFor('the new certificate to be served', async () => (await servedFingerprint(fixture.server.port, fixture.tls.caCertPem)) === expected, { timeoutMs: 10_000 });
    expect((await fixture.call('GET', '/apis', { key: fixture.adminKey })).status).toBe(200);
  });

  it('plain HTTP only when explicitly asked for', async () => {
    const storage = new MapStorage();
    await expect(startManagementServer({ storage, keyHashSecret: Buffer.alloc(32, 1), logger: silentLogger() })).rejects.toThrow(/insecureHttp: true/);
    const plain = await startManagementServer({ storage, keyHashSecret: Buffer.alloc(32, 1), insecureHttp: true, logger: silentLogger() });
    try {
      expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/kubernetes\/management$/);
      const response = await fetch(`${plain.url}/apis`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ kind: 'Status', code: 401 });
    } finally {
      await plain.close();
    }
  });
});
