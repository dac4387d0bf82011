import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { cachedBodyDigest, hostBodyDigest, hostMatchesDesired, withHostChanges } from '../../../src/syncer/host-changes.js';
import { cachedHostCopy } from '../../../src/syncer/host-copy-cache.js';

const object = (fields: Record<string, unknown>): KubeObject => fields as KubeObject;

describe('hostMatchesDesired', () => {
  const desired = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'a', labels: { x: '1' }, annotations: { y: '2' } }, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] };

  it('ignores server-owned metadata and the envelope', () => {
    const host = { metadata: { name: 'a', uid: 'u', resourceVersion: '9', labels: { x: '1' }, annotations: { y: '2' } }, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] };
    expect(hostMatchesDesired(host, desired)).toBe(true);
  });

  it.each([
    ['a changed subset', { subsets: [{ addresses: [{ ip: '10.0.0.2' }] }] }],
    ['an extra host field', { extra: 'x' }],
    ['a changed label', { metadata: { name: 'a', labels: { x: '2' }, annotations: { y: '2' } } }],
    ['a missing annotation', { metadata: { name: 'a', labels: { x: '1' } } }],
    ['an extra label', { metadata: { name: 'a', labels: { x: '1', z: '1' }, annotations: { y: '2' } } }],
    ['a label renamed, same count', { metadata: { name: 'a', labels: { w: '1' }, annotations: { y: '2' } } }],
    ['an empty annotation value', { metadata: { name: 'a', labels: { x: '1' }, annotations: { y: '' } } }],
  ])('sees %s', (_name, change) => {
    expect(hostMatchesDesired({ ...desired, ...change }, desired)).toBe(false);
  });

  it('treats empty lists and maps like absent fields', () => {
    expect(hostMatchesDesired(object({ metadata: {}, subsets: [] }), object({ metadata: {} }))).toBe(true);
    expect(hostMatchesDesired(object({ metadata: {} }), object({ metadata: {}, subsets: [] }))).toBe(true);
  });

  it('treats nested empty lists and maps like absent fields, as a real kube-apiserver drops them', () => {
    const stored = object({ metadata: {}, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }] });
    const fromVirtual = object({ metadata: {}, subsets: [{ addresses: [{ ip: '10.0.0.1' }], notReadyAddresses: [], ports: [{ port: 80, protocol: 'TCP' }] }] });
    expect(hostMatchesDesired(stored, fromVirtual)).toBe(true);
    expect(hostMatchesDesired(stored, object({ ...fromVirtual, subsets: [{ addresses: [{ ip: '10.0.0.2' }] }] }))).toBe(false);
  });
});

describe('hostMatchesDesired on a host copy cached without its body (compared by digest)', () => {
  const desired = object({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'a', labels: { x: '1' } }, subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }], ports: [{ port: 80, protocol: 'TCP' }] }] });
  const digested = (host: Record<string, unknown>): KubeObject => cachedHostCopy(object(host), false);

  it('carries a digest and no body', () => {
    const copy = digested({ ...desired, metadata: { name: 'a', uid: 'u', labels: { x: '1' } } });
    expect(copy).not.toHaveProperty('subsets');
    expect(cachedBodyDigest(copy)).toBe(hostBodyDigest(desired));
  });

  it.each([
    ['the same body', { subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }], ports: [{ port: 80, protocol: 'TCP' }] }] }, true],
    ['its keys in another order', { subsets: [{ ports: [{ protocol: 'TCP', port: 80 }], addresses: [{ nodeName: 'n', ip: '10.0.0.1' }] }] }, true],
    ['an empty list the server dropped', { subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }], notReadyAddresses: [], ports: [{ port: 80, protocol: 'TCP' }] }] }, true],
    ['a changed IP', { subsets: [{ addresses: [{ ip: '10.0.0.9', nodeName: 'n' }], ports: [{ port: 80, protocol: 'TCP' }] }] }, false],
    ['a port as a string', { subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }], ports: [{ port: '80', protocol: 'TCP' }] }] }, false],
    ['addresses in another order', { subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }, { ip: '10.0.0.2' }], ports: [{ port: 80, protocol: 'TCP' }] }] }, false],
    ['an extra field', { subsets: (desired as { subsets: unknown }).subsets, extra: 'x' }, false],
  ])('with %s: %s, as the whole object compares', (_name, body, same) => {
    const host = { metadata: { name: 'a', uid: 'u', resourceVersion: '9', labels: { x: '1' } }, ...body };
    expect(hostMatchesDesired(digested(host), desired)).toBe(same);
    expect(hostMatchesDesired(object(host), desired)).toBe(same);
  });

  it('finds labels and annotations equal whatever their key order', () => {
    const host = { ...desired, metadata: { name: 'a', labels: { b: '2', a: '1' }, annotations: { d: '', c: 'x' } } };
    expect(hostMatchesDesired(host, { ...desired, metadata: { name: 'a', labels: { a: '1', b: '2' }, annotations: { c: 'x', d: '' } } })).toBe(true);
  });

  it('still compares labels and annotations from the metadata it keeps', () => {
    expect(hostMatchesDesired(digested({ ...desired, metadata: { name: 'a', labels: { x: '2' } } }), desired)).toBe(false);
    expect(hostMatchesDesired(digested({ ...desired, metadata: { name: 'a', labels: { x: '1' }, annotations: { y: '1' } } }), desired)).toBe(false);
  });
});

describe('withHostChanges', () => {
  it('takes changed and added host keys, drops keys the host removed, keeps ignored keys', () => {
    const current = Object.freeze({ keep: 'v', changed: 'old', removed: 'r', leader: 'virtual' });
    const expected = Object.freeze({ keep: 'v', changed: 'old', removed: 'r' });
    const actual = Object.freeze({ keep: 'v', changed: 'new', added: 'a', leader: 'host' });
    expect(withHostChanges(current, expected, actual, new Set(['leader']))).toEqual({ keep: 'v', changed: 'new', added: 'a', leader: 'virtual' });
  });

  it('does not copy back a value the syncer itself wrote (e.g. a forward-patched one)', () => {
    // virtual app=Web, forward patch lowercases: the syncer writes app=web, so host app=web is no host change.
    expect(withHostChanges({ app: 'Web' }, { app: 'web' }, { app: 'web' }, new Set())).toEqual({ app: 'Web' });
  });
});

describe('hostBodyDigest', () => {
  // Digests of the first implementation (normalise, then sorted-key JSON, then SHA-256): the one-pass
  // version must give the same text, so the same digests. Since the digest keeps 128 bits (16 bytes
  // encoded, not 22 characters of all 32), only the last character of some changed: the first 21
  // are still the first implementation's.
  it.each([
    [{ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'a' }, subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'n' }], notReadyAddresses: [], ports: [{ port: 80, protocol: 'TCP' }] }] }, 'tvTiUjuKNagulNt4_zfy8Q'],
    [{ metadata: { name: 'a' } }, 'RBNvo1WzZ4oRRq0W9-hkng'],
    [{ kind: 'X', spec: { a: null, b: [], c: {}, d: [[], {}, null, 0, '', false], 'é"\\': { z: 1, a: [1, 'x'] } }, status: 'ok' }, 'CxlJRFpvPSFqNZ0tYiuoNQ'],
    [{ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }, {}], ports: [{ name: 'http', port: 80 }], __proto__x: 1 }, 'D_rzEJlkrA760b4Ciu3IZA'],
    // Keys sorted and unsorted side by side at every depth, numbers JSON writes differently from their source.
    [{ spec: { b: 1.5, a: -0, c: 1e21, d: -7, nested: { y: true, x: [{ q: 'z', p: 'y' }, { p: 'a', q: 'b' }] } }, data: { zeta: '1', alpha: '2', Beta: '3', 'a-b': '4', ab: '5' } }, 'lPCkprzQEpZn8Nbt2mZMnA'],
  ])('digests %j as before', (fields, digest) => {
    expect(hostBodyDigest(object(fields))).toBe(digest);
  });

  it('is the same for a body with only empty values as for none', () => {
    expect(hostBodyDigest(object({ metadata: { name: 'a' }, subsets: [], spec: { a: {}, b: null } }))).toBe(hostBodyDigest(object({ metadata: { name: 'b' } })));
  });
});
