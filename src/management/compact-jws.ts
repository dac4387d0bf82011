/**
 * Compact JWS (RFC 7515) signing of the management API's tokens with node:crypto: the header and
 * claims serialised once, the signature computed on libuv's thread pool. A token is a few hundred
 * bytes, so the signature is nearly all of its cost; through WebCrypto (jose) the RSA signature
 * ran on the event loop with several promise layers around it, here the loop only serialises
 * while another core signs.
 */
import { type KeyObject, sign } from 'node:crypto';
import type { SigningAlgorithm } from './key-rotation.js';

/** A JWT's protected header as this server writes it. */
export interface JwsHeader {
  alg: SigningAlgorithm;
  kid: string;
  typ: 'JWT';
}

function base64url(json: unknown): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

/**
 * The compact serialisation `header.payload.signature` of `payload` signed with `key`: RS256 is
 * RSASSA-PKCS1-v1_5 with SHA-256, ES256 ECDSA P-256 with SHA-256 in the JWS form of the signature
 * (r and s, 32 octets each, not DER). Rejects when the key does not fit the algorithm.
 */
export function signCompactJws(header: JwsHeader, payload: Readonly<Record<string, unknown>>, key: KeyObject): Promise<string> {
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  const signer = header.alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;
  const expected = header.alg === 'ES256' ? 'ec' : 'rsa';
  if (key.asymmetricKeyType !== expected) return Promise.reject(new TypeError(`a ${header.alg} signature needs an ${expected.toUpperCase()} key, got ${key.asymmetricKeyType ?? key.type}`));
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(signingInput), signer, (error, signature) => {
      if (error !== null) reject(error);
      else resolve(`${signingInput}.${signature.toString('base64url')}`);
    });
  });
}
