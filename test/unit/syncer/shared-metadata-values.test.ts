import { describe, expect, it } from 'vitest';
import type { ObjectMeta } from '../../../src/kube/kube-object.js';
import { SharedMetadataValues } from '../../../src/syncer/shared-metadata-values.js';

/** Metadata as decoded from a response: each string a copy of its own. */
function decoded(name: string): ObjectMeta {
  return Object.freeze(
    JSON.parse(
      JSON.stringify({
        name,
        namespace: 'vcluster-host-namespace',
        labels: { 'vcluster.loft.sh/managed-by': 'my-virtual-cluster', app: name },
        annotations: { 'vcluster.loft.sh/object-kind': 'discovery.k8s.io/v1, Kind=EndpointSlice', 'vcluster.loft.sh/object-host-name': name, other: 'x' },
      }),
    ) as ObjectMeta,
  );
}

const options = {
  labelKeys: ['vcluster.loft.sh/managed-by'],
  annotationKeys: ['vcluster.loft.sh/object-kind'],
  nameAnnotationKeys: ['vcluster.loft.sh/object-host-name'],
};

describe('SharedMetadataValues', () => {
  it('gives back metadata equal field by field and in the same key order, without modifying the input', () => {
    const input = decoded('web-x-default-x-vc');
    const before = JSON.stringify(input);
    const shared = new SharedMetadataValues(options).metadata(input);
    expect(JSON.stringify(shared)).toBe(before);
    expect(JSON.stringify(input)).toBe(before);
    expect(shared).not.toBe(input);
  });

  it('shares the namespace and the values of the keys given, not other values', () => {
    const values = new SharedMetadataValues(options);
    const a = values.metadata(decoded('a-long-name-of-a-copy'));
    const b = values.metadata(decoded('b-long-name-of-a-copy'));
    expect(values.share(`vcluster-host-${'namespace'}`)).toBe(a.namespace);
    expect(b.namespace).toBe(a.namespace);
    expect(b.labels?.['vcluster.loft.sh/managed-by']).toBe(a.labels?.['vcluster.loft.sh/managed-by']);
    expect(b.annotations?.['vcluster.loft.sh/object-kind']).toBe(a.annotations?.['vcluster.loft.sh/object-kind']);
    expect(b.labels?.['app']).toBe('b-long-name-of-a-copy');
  });

  it('keeps at most maxValues values, giving later ones back as they are', () => {
    const values = new SharedMetadataValues({ maxValues: 1 });
    expect(values.share('first')).toBe('first');
    expect(values.share('second')).toBe('second');
    expect(values.share('fir' + 'st')).toBe('first');
    expect(values.size).toBe(1);
  });

  it('keeps no long value: kept values outlive their objects, and anyone writing a host object sets them', () => {
    const values = new SharedMetadataValues({ annotationKeys: ['k'] });
    const long = 'x'.repeat(100_000);
    expect(values.share(long)).toBe(long);
    expect(values.size).toBe(0);
    values.metadata({ name: 'a', namespace: 'n', annotations: { k: long } });
    expect(values.share('short')).toBe('short');
    expect(values.size).toBe(2); // the namespace and 'short'
  });

  it('leaves metadata without labels or annotations without them', () => {
    const shared = new SharedMetadataValues(options).metadata({ name: 'a', namespace: 'n' });
    expect(shared).toEqual({ name: 'a', namespace: 'n' });
    expect(Object.keys(shared)).toEqual(['name', 'namespace']);
  });

  it('gives a name annotation the name only when it equals the name', () => {
    const input = { ...decoded('a'), annotations: { 'vcluster.loft.sh/object-host-name': 'other' } };
    expect(new SharedMetadataValues(options).metadata(input).annotations).toEqual({ 'vcluster.loft.sh/object-host-name': 'other' });
  });
});
