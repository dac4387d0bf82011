import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GENERATED_KEY_BYTES, KEY_HASH_PREFIX, MAX_KEY_LENGTH, MIN_CLIENT_KEY_LENGTH } from './management-constants.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A fresh access key: 256 bits from the operating system's CSPRNG, base64url (43 characters). */
export function generateAccessKey(): string {
  return randomBytes(GENERATED_KEY_BYTES).toString('base64url');
}

/** Whether `value` is a stored key hash rather than a key. */
export function isKeyHash(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(KEY_HASH_PREFIX);
}

/**
 * Why a client-chosen key is too weak, or undefined when it is acceptable: at least
 * {@link MIN_CLIENT_KEY_LENGTH} base64url characters (A-Z a-z 0-9 - _), at most
 * {@link MAX_KEY_LENGTH}, and not one character repeated throughout.
 */
export function weakKeyReason(key: string): string | undefined {
  if (key.length < MIN_CLIENT_KEY_LENGTH) return `an access key must be at least ${MIN_CLIENT_KEY_LENGTH} characters long (got ${key.length}); omit spec.key to have the server generate a 256-bit key`;
  if (key.length > MAX_KEY_LENGTH) return `an access key must be at most ${MAX_KEY_LENGTH} characters long (got ${key.length})`;
  if (!BASE64URL.test(key)) return 'an access key may only hold the characters A-Z, a-z, 0-9, - and _ (base64url)';
  if (new Set(key).size < 8) return 'an access key must not be made of a few repeated characters; omit spec.key to have the server generate one';
  return undefined;
}

/**
 * Turns access keys into what is stored: HMAC-SHA256 keyed with the installation's secret (see
 * docs/adr on access-key hashing). Deterministic, so the hash is also the lookup index; the
 * comparison of a presented key with a stored hash is constant-time.
 */
export class AccessKeyHasher {
  readonly #secret: Buffer;

  /** `secret`: the per-installation HMAC key, at least 16 bytes. */
  constructor(secret: Buffer) {
    if (secret.length < 16) throw new TypeError(`the access-key hash secret must be at least 16 bytes (got ${secret.length})`);
    this.#secret = Buffer.from(secret);
  }

  /** The stored form of `key`: `hmac-sha256:<base64url>`. */
  hash(key: string): string {
    return `${KEY_HASH_PREFIX}${createHmac('sha256', this.#secret).update(key, 'utf8').digest('base64url')}`;
  }

  /** Whether `key` is the key `storedHash` was made from, compared in constant time. */
  matches(key: string, storedHash: string): boolean {
    return sameKeyHash(this.hash(key), storedHash);
  }
}

/**
 * Whether two key hashes are equal, compared in constant time (for a hash already computed from
 * the presented key: one HMAC per request, not two).
 */
export function sameKeyHash(presentedHash: string, storedHash: string): boolean {
  const presented = Buffer.from(presentedHash);
  const stored = Buffer.from(storedHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
