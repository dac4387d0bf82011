import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { WITHOUT_MANAGED_FIELDS, withoutManagedFields } from '../../../src/kube/object-transforms.js';

describe('withoutManagedFields', () => {
  it('drops metadata.managedFields and keeps every other field, without modifying the input', () => {
    const object = Object.freeze({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: Object.freeze({ name: 'a', namespace: 'n', uid: 'u', resourceVersion: '1', labels: { x: '1' }, managedFields: [{ manager: 'm' }] }),
      subsets: [{ addresses: [{ ip: '10.0.0.1' }] }],
    }) as KubeObject;
    const result = withoutManagedFields(object);
    expect(result).toEqual({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'a', namespace: 'n', uid: 'u', resourceVersion: '1', labels: { x: '1' } }, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] });
    expect(object.metadata).toHaveProperty('managedFields');
  });

  it('returns an object without managedFields as it is', () => {
    const object: KubeObject = { metadata: { name: 'a' } };
    expect(withoutManagedFields(object)).toBe(object);
    expect(WITHOUT_MANAGED_FIELDS.apply(object)).toBe(object);
    expect(WITHOUT_MANAGED_FIELDS.name).toBe('without-managed-fields');
  });
});
