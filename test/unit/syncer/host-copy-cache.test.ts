import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { withoutManagedFields } from '../../../src/kube/object-transforms.js';
import { cachedBodyDigest, hostBodyDigest } from '../../../src/syncer/host-changes.js';
import { cachedHostCopy, hostCopyTransform } from '../../../src/syncer/host-copy-cache.js';

/** A host copy as a real kube-apiserver serves it: identity, vcluster labels and annotations, managedFields, subsets. */
function served(): KubeObject {
  return Object.freeze({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: Object.freeze({
      name: 'web-x-default-x-vc',
      namespace: 'host-ns',
      uid: 'h-uid',
      resourceVersion: '42',
      creationTimestamp: '2026-11-23T00:00:00Z',
      labels: { 'vcluster.loft.sh/managed-by': 'vc', app: 'web' },
      annotations: { 'vcluster.loft.sh/object-name': 'web', 'vcluster.loft.sh/object-uid': 'v-uid' },
      managedFields: [{ manager: 'vcsync', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:subsets': {} } }],
    }),
    subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }],
  } as KubeObject);
}

describe('cachedHostCopy', () => {
  it('without the body: keeps the envelope and metadata but managedFields, and the digest of the rest', () => {
    const object = served();
    const copy = cachedHostCopy(object, false);
    const metadata = withoutManagedFields(object).metadata;
    expect(Object.keys(copy)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect([copy.apiVersion, copy.kind, copy.metadata]).toEqual(['v1', 'Endpoints', metadata]);
    expect(cachedBodyDigest(copy)).toBe(hostBodyDigest(object));
    // Never serialised: a copy that reached the wire would show no digest field.
    expect(JSON.parse(JSON.stringify(copy))).toEqual({ apiVersion: 'v1', kind: 'Endpoints', metadata });
  });

  it('with the body: the whole object but managedFields, no digest', () => {
    const object = served();
    const copy = cachedHostCopy(object, true);
    const metadata = withoutManagedFields(object).metadata;
    expect(copy).toEqual({ ...object, metadata });
    expect(cachedBodyDigest(copy)).toBeUndefined();
  });

  it('returns an object without managedFields as it is when keeping the body', () => {
    const object: KubeObject = { metadata: { name: 'a' } };
    expect(cachedHostCopy(object, true)).toBe(object);
  });
});

describe('hostCopyTransform', () => {
  it('asks per object whether to keep bodies, so a reload applies to objects cached from then on', () => {
    let keep = false;
    const transform = hostCopyTransform(() => keep);
    expect(transform.name).toBe('host-copy');
    expect(transform.apply(served())).not.toHaveProperty('subsets');
    keep = true;
    expect(transform.apply(served())).toHaveProperty('subsets');
  });
});
