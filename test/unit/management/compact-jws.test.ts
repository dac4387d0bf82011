import { generateKeyPairSync } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { signCompactJws } from '../../../src/management/compact-jws.js';

describe('signCompactJws', () => {
  it.each([
    ['RS256', generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ] as const)('writes a %s JWS that jose verifies with the public JWK', async (alg, pair) => {
    const payload = { sub: 'jane', groups: ['a', 'b'], 'management.loft.sh': { kind: 'DirectClusterEndpointToken' }, exp: 2_000_000_000 };
    const token = await signCompactJws({ alg, kid: 'k1', typ: 'JWT' }, payload, pair.privateKey);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decodeProtectedHeader(token)).toEqual({ alg, kid: 'k1', typ: 'JWT' });
    const publicKey = await importJWK({ ...pair.publicKey.export({ format: 'jwk' }), alg }, alg);
    const verified = await compactVerify(token, publicKey, { algorithms: [alg] });
    expect(JSON.parse(Buffer.from(verified.payload).toString('utf8'))).toEqual(payload);
    if (alg === 'ES256') expect(Buffer.from(token.split('.')[2] ?? '', 'base64url')).toHaveLength(64);
  });

  it('refuses a key that does not fit the algorithm', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    await expect(signCompactJws({ alg: 'RS256', kid: 'k', typ: 'JWT' }, {}, ec)).rejects.toThrow(/RS256 signature needs an RSA key/);
  });
});
