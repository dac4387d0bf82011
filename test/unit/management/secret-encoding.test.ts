import { describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../src/apiserver/storage.js';
import {
  MANAGEMENT_SECRET_TYPE,
  NAME_ANNOTATION,
  NAMESPACE_ANNOTATION,
  OBJECT_DATA_KEY,
  RESOURCE_ANNOTATION,
  RESOURCE_LABEL,
  decodeSecret,
  encodeSecret,
  resourceLabelValue,
  secretNameFor,
} from '../../../src/management/secret-encoding.js';

const KEYS = 'management.loft.sh/v1/ownedaccesskeys';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

describe('secretNameFor', () => {
  it('is readable, deterministic and a valid Secret name', () => {
    const name = secretNameFor({ resource: KEYS, namespace: '', name: 'ci-pipeline' });
    expect(name).toMatch(/^ownedaccesskeys-ci-pipeline-[0-9a-f]{15}$/);
    expect(secretNameFor({ resource: KEYS, namespace: '', name: 'ci-pipeline' })).toBe(name);
    expect(name).toMatch(DNS_SUBDOMAIN);
  });

  it('gives distinct Secrets to names that read alike, namespaces, and the same plural in two groups', () => {
    const names = [
      secretNameFor({ resource: KEYS, namespace: '', name: 'a.b' }),
      secretNameFor({ resource: KEYS, namespace: '', name: 'a-b' }),
      secretNameFor({ resource: KEYS, namespace: 'a', name: 'b' }),
      secretNameFor({ resource: 'other.example.io/v1/ownedaccesskeys', namespace: '', name: 'a-b' }),
    ];
    expect(new Set(names).size).toBe(names.length);
  });

  it('shortens long names to 253 characters and keeps them distinct through the hash', () => {
    const long = 'x'.repeat(250);
    const first = secretNameFor({ resource: KEYS, namespace: '', name: `${long}a` });
    const second = secretNameFor({ resource: KEYS, namespace: '', name: `${long}b` });
    expect(first.length).toBeLessThanOrEqual(253);
    expect(first).toMatch(DNS_SUBDOMAIN);
    expect(first).not.toBe(second);
  });

  it('yields a valid name whatever characters the object name holds', () => {
    expect(secretNameFor({ resource: 'g/v1/things', namespace: '', name: '--Ünïcode:name--' })).toMatch(DNS_SUBDOMAIN);
    expect(secretNameFor({ resource: '', namespace: '', name: '...' })).toMatch(/^m-[0-9a-f]{15}$/);
  });
});

describe('resourceLabelValue', () => {
  it('turns the resource id into a dotted label value', () => {
    expect(resourceLabelValue(KEYS)).toBe('management.loft.sh.v1.ownedaccesskeys');
  });

  it('shortens an id longer than a label value with a hash, distinct per id', () => {
    const group = `${'very-long-group-name.'.repeat(4)}example.io`;
    const first = resourceLabelValue(`${group}/v1/widgets`);
    const second = resourceLabelValue(`${group}/v2/widgets`);
    expect(first.length).toBeLessThanOrEqual(63);
    expect(first).toMatch(LABEL_VALUE);
    expect(first).not.toBe(second);
  });
});

describe('encodeSecret and decodeSecret', () => {
  const object: StoredObject = Object.freeze({
    apiVersion: 'management.loft.sh/v1',
    kind: 'OwnedAccessKey',
    metadata: Object.freeze({ name: 'ci', uid: 'u-1', resourceVersion: 'stale' }),
    spec: Object.freeze({ user: 'admin', keyHash: 'sha256:abc' }),
  });

  it('stores the object as JSON in one data key, labelled and annotated, without its resourceVersion', () => {
    const secret = encodeSecret(KEYS, object, 'vcsync', '41');
    expect(secret).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      type: MANAGEMENT_SECRET_TYPE,
      metadata: {
        name: secretNameFor({ resource: KEYS, namespace: '', name: 'ci' }),
        namespace: 'vcsync',
        resourceVersion: '41',
        labels: { [RESOURCE_LABEL]: 'management.loft.sh.v1.ownedaccesskeys' },
        annotations: { [RESOURCE_ANNOTATION]: KEYS, [NAMESPACE_ANNOTATION]: '', [NAME_ANNOTATION]: 'ci' },
      },
    });
    const json = JSON.parse(Buffer.from(secret.data?.[OBJECT_DATA_KEY] ?? '', 'base64').toString('utf8')) as StoredObject;
    expect(json.metadata).toEqual({ name: 'ci', uid: 'u-1' });
    expect(json['spec']).toEqual({ user: 'admin', keyHash: 'sha256:abc' });
  });

  it('reads the object back with the Secret’s resourceVersion as its own', () => {
    const secret = encodeSecret(KEYS, object, 'vcsync');
    const decoded = decodeSecret({ ...secret, metadata: { ...secret.metadata, resourceVersion: '77' } });
    expect(decoded).toEqual({ ref: { resource: KEYS, namespace: '', name: 'ci' }, object: { ...object, metadata: { name: 'ci', uid: 'u-1', resourceVersion: '77' } } });
  });

  it.each([
    ['no annotations', { metadata: { name: 's' }, data: {} }, /annotations/],
    ['no data key', { metadata: { name: 's', annotations: { [RESOURCE_ANNOTATION]: KEYS, [NAME_ANNOTATION]: 'ci' } }, data: {} }, /data key "object" is missing/],
    ['data that is not JSON', { metadata: { name: 's', annotations: { [RESOURCE_ANNOTATION]: KEYS, [NAME_ANNOTATION]: 'ci' } }, data: { object: Buffer.from('{').toString('base64') } }, /not JSON/],
    ['an object whose name differs', { metadata: { name: 's', annotations: { [RESOURCE_ANNOTATION]: KEYS, [NAME_ANNOTATION]: 'ci' } }, data: { object: Buffer.from('{"metadata":{"name":"other"}}').toString('base64') } }, /differs/],
  ])('says what is wrong with a Secret with %s', (_case, secret, problem) => {
    const decoded = decodeSecret(secret);
    expect('problem' in decoded && decoded.problem).toMatch(problem);
  });
});
