import { describe, expect, it } from 'vitest';
import { objectKey } from '../../../src/kube/object-key.js';
import { cachedService, SERVICE_SELECTOR_ONLY } from '../../../src/syncer/endpoints/cached-service.js';
import type { Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import { serviceWantsEndpointsSync } from '../../../src/syncer/endpoints/translate.js';

/** A Service as a real kube-apiserver serves it. */
function served(selector?: Record<string, string>): Service {
  return Object.freeze({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 's-uid',
      resourceVersion: '7',
      creationTimestamp: '2026-11-23T00:00:00Z',
      labels: { app: 'web' },
      annotations: { note: 'x' },
      managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': {} } }],
    },
    spec: {
      ...(selector !== undefined ? { selector } : {}),
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ipFamilies: ['IPv4'],
    },
    status: { loadBalancer: {} },
  } as Service);
}

describe('cachedService: what the virtual Services cache keeps', () => {
  it('keeps the identity and the selector, drops ports, IPs, status, labels, annotations and managedFields', () => {
    expect(cachedService(served({ app: 'web' }))).toEqual({
      metadata: { name: 'web', namespace: 'default', uid: 's-uid', resourceVersion: '7' },
      spec: { selector: { app: 'web' } },
    });
  });

  it('keeps no spec for a Service without a selector', () => {
    expect(cachedService(served())).toEqual({ metadata: { name: 'web', namespace: 'default', uid: 's-uid', resourceVersion: '7' } });
  });

  it('keeps a deletionTimestamp', () => {
    const deleting = { ...served(), metadata: { ...served().metadata, deletionTimestamp: '2026-11-23T01:00:00Z' } };
    expect(cachedService(deleting).metadata?.deletionTimestamp).toBe('2026-11-23T01:00:00Z');
  });

  it.each([
    ['no selector', undefined],
    ['an empty selector', {}],
    ['a selector', { app: 'web' }],
  ])('decides the Endpoints sync and wakes the same key as the whole Service (%s)', (_name, selector) => {
    const whole = served(selector);
    const cached = SERVICE_SELECTOR_ONLY.apply(whole);
    expect(serviceWantsEndpointsSync(cached)).toBe(serviceWantsEndpointsSync(whole));
    expect(objectKey(cached)).toBe(objectKey(whole));
  });
});
