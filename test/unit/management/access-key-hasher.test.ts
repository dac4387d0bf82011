import { describe, expect, it } from 'vitest';
import { AccessKeyHasher, generateAccessKey, isKeyHash, sameKeyHash, weakKeyReason } from '../../../src/management/access-key-hasher.js';

describe('access keys: generation, strength, keyed hashing', () => {
  it('generates 256-bit base64url keys, all different', () => {
    const keys = new Set(Array.from({ length: 100 }, generateAccessKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key, 'base64url')).toHaveLength(32);
      expect(weakKeyReason(key)).toBeUndefined();
    }
  });

  it.each([
    ['too short', 'abcDEF123_-', 'at least 32 characters'],
    ['too long', 'a'.repeat(513), 'at most 512'],
    ['not base64url', 'abcdefghijklmnopqrstuvwxyz0123456789!!', 'base64url'],
    ['a few repeated characters', 'abababababababababababababababababab', 'repeated'],
  ])('refuses a client key that is %s', (_case, key, reason) => {
    expect(weakKeyReason(key)).toContain(reason);
  });

  it('hashes with HMAC-SHA256 under the installation secret: deterministic per secret, different across secrets', () => {
    const key = generateAccessKey();
    const one = new AccessKeyHasher(Buffer.alloc(32, 1));
    const other = new AccessKeyHasher(Buffer.alloc(32, 2));
    expect(one.hash(key)).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(one.hash(key)).toBe(one.hash(key));
    expect(one.hash(key)).not.toBe(other.hash(key));
    expect(isKeyHash(one.hash(key))).toBe(true);
    expect(isKeyHash(key)).toBe(false);
    expect(one.matches(key, one.hash(key))).toBe(true);
    expect(one.matches(`${key}x`, one.hash(key))).toBe(false);
    expect(one.matches(key, 'hmac-sha256:short')).toBe(false);
    expect(() => new AccessKeyHasher(Buffer.alloc(8))).toThrow(/at least 16 bytes/);
  });

  it('compares key hashes (already computed) in constant time: equal, different, different length', () => {
    const hasher = new AccessKeyHasher(Buffer.alloc(32, 1));
    const hash = hasher.hash(generateAccessKey());
    expect(sameKeyHash(hash, `${hash}`)).toBe(true);
    expect(sameKeyHash(hash, hasher.hash(generateAccessKey()))).toBe(false);
    expect(sameKeyHash(hash, `${hash}x`)).toBe(false);
    expect(sameKeyHash(hash, 'hmac-sha256:short')).toBe(false);
  });
});
