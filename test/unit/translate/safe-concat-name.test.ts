import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { safeConcatName, sha256Hex } from '../../../src/translate/safe-concat-name.js';
import {
  base36,
  clusterScopedHostName,
  isKubernetesEndpoints,
  kubernetesEndpointsHostRef,
  shortHostName,
  singleNamespaceHostName,
} from '../../../src/translate/host-names.js';

const hex10 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 10);

describe('safeConcatName', () => {
  it('matches the reference vector: 40 × a in default of my-vcluster', () => {
    const name = 'a'.repeat(40);
    const result = singleNamespaceHostName(name, 'default', 'my-vcluster');
    expect(result).toBe(`${name}-x-default-x-7799225210`);
    expect(result).toHaveLength(63);
  });

  it('matches the reference vector: web in default of vc1', () => {
    expect(singleNamespaceHostName('web', 'default', 'vc1')).toBe('web-x-default-x-vc1');
  });

  it('joins with dashes and leaves a result of exactly 63 characters untouched', () => {
    const parts = ['b'.repeat(61), 'c'];
    const joined = parts.join('-');
    expect(joined).toHaveLength(63);
    expect(safeConcatName(...parts)).toBe(joined);
  });

  it('hashes a 64-character result: 52 kept + "-" + 10 hex of the whole string', () => {
    const joined = `${'d'.repeat(62)}-e`;
    expect(joined).toHaveLength(64);
    const result = safeConcatName('d'.repeat(62), 'e');
    expect(result).toBe(`${'d'.repeat(52)}-${hex10(joined)}`);
    expect(result).toHaveLength(63);
  });

  it('replaces ".-" after truncation, so the kept part never ends in a dot before the dash', () => {
    const name = `${'f'.repeat(51)}.${'g'.repeat(20)}`; // character 52 is the dot
    const result = safeConcatName(name);
    expect(result).toBe(`${'f'.repeat(51)}-${hex10(name)}`);
    expect(result).toHaveLength(62);
    expect(result).not.toContain('.-');
  });

  it('keeps dots that are not followed by a dash in long names', () => {
    const result = safeConcatName('my.app.example', 'x', 'n'.repeat(60));
    expect(result.startsWith('my.app.example-x-')).toBe(true);
  });

  it('returns a short result exactly as joined, like vcluster (no ".-" rewrite below the limit)', () => {
    expect(safeConcatName('a.', 'b')).toBe('a.-b');
  });

  it('is deterministic and distinguishes inputs that share the first 52 characters', () => {
    const base = 'h'.repeat(60);
    expect(safeConcatName(base, '1')).toBe(safeConcatName(base, '1'));
    expect(safeConcatName(base, '1')).not.toBe(safeConcatName(base, '2'));
  });

  it('does not lowercase: uppercase input stays uppercase (the API server rejects it)', () => {
    expect(safeConcatName('Web', 'x', 'Default')).toBe('Web-x-Default');
  });

  it('counts UTF-8 bytes and never splits a character when truncating', () => {
    const name = 'é'.repeat(40); // 80 bytes
    const result = safeConcatName(name);
    expect(result).toBe(`${'é'.repeat(26)}-${sha256Hex(name).slice(0, 10)}`);
    expect(Buffer.byteLength(result)).toBe(63);
    // 31 two-byte characters (62 bytes) fit unchanged; 32 (64 bytes) do not.
    expect(safeConcatName('é'.repeat(31))).toBe('é'.repeat(31));
    expect(safeConcatName('é'.repeat(32))).not.toBe('é'.repeat(32));
  });

  it('handles empty parts and no parts', () => {
    expect(safeConcatName()).toBe('');
    expect(safeConcatName('', '')).toBe('-');
  });
});

describe('shortHostName', () => {
  it('is v + 13 base36 characters of the SHA-256 of the long host name', () => {
    const long = singleNamespaceHostName('db-secret', 'default', 'vc1');
    const digest = createHash('sha256').update(long).digest();
    const expected = `v${BigInt(`0x${digest.toString('hex')}`).toString(36).slice(0, 13)}`;
    expect(shortHostName('db-secret', 'default', 'vc1')).toBe(expected);
  });

  it('always has the shape ^v[a-z0-9]{13}$ and differs by namespace and vcluster', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const short = shortHostName(`name-${i}`, i % 2 === 0 ? 'default' : 'other', `vc-${i % 3}`);
      expect(short).toMatch(/^v[a-z0-9]{13}$/);
      seen.add(short);
    }
    expect(seen.size).toBe(300);
    expect(shortHostName('a', 'ns1', 'vc')).not.toBe(shortHostName('a', 'ns2', 'vc'));
    expect(shortHostName('a', 'ns', 'vc1')).not.toBe(shortHostName('a', 'ns', 'vc2'));
  });
});

describe('base36', () => {
  it('encodes big-endian with one 0 per leading zero byte', () => {
    expect(base36(new Uint8Array([0x01, 0x00]))).toBe((256).toString(36));
    expect(base36(new Uint8Array([0x00, 0x00, 0x23]))).toBe('00z');
    expect(base36(new Uint8Array([0x00]))).toBe('0');
    expect(base36(new Uint8Array([]))).toBe('');
  });

  it('keeps a 32-byte digest with leading zero bytes longer than 13 characters', () => {
    const digest = new Uint8Array(32);
    digest[31] = 1;
    const encoded = base36(digest);
    expect(encoded).toBe(`${'0'.repeat(31)}1`);
    expect(`v${encoded.slice(0, 13)}`).toMatch(/^v[a-z0-9]{13}$/);
  });
});

describe('other host names', () => {
  it('names cluster-scoped objects vcluster-<name>-x-<hostNamespace>-x-<vcluster>', () => {
    expect(clusterScopedHostName('fast', 'vcluster-ns', 'vc1')).toBe('vcluster-fast-x-vcluster-ns-x-vc1');
    expect(clusterScopedHostName('s'.repeat(60), 'ns', 'vc')).toHaveLength(63);
  });

  it('maps default/kubernetes to the Endpoints named after the vcluster', () => {
    expect(isKubernetesEndpoints({ name: 'kubernetes', namespace: 'default' })).toBe(true);
    expect(isKubernetesEndpoints({ name: 'kubernetes', namespace: 'other' })).toBe(false);
    expect(isKubernetesEndpoints({ name: 'web', namespace: 'default' })).toBe(false);
    expect(kubernetesEndpointsHostRef('vc1', 'vcluster-vc1')).toEqual({ name: 'vc1', namespace: 'vcluster-vc1' });
  });
});
