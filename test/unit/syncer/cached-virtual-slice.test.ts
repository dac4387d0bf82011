import { describe, expect, it } from 'vitest';
import { withoutManagedFields } from '../../../src/kube/object-transforms.js';
import type { EndpointConditions, EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';
import { cachedVirtualSlice, sharedConditions, sharedPorts, VIRTUAL_SLICE } from '../../../src/syncer/endpointslices/cached-virtual-slice.js';
import type { SlicePort } from '../../../src/syncer/endpointslices/endpointslice-types.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A slice as the API server serves it: managedFields, endpoints with conditions, hints and a targetRef. */
function served(): EndpointSlice {
  return deepFreeze({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'web-abcde',
      namespace: 'shop',
      labels: { 'kubernetes.io/service-name': 'web' },
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'discovery.k8s.io/v1' }],
    },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n1', targetRef: { kind: 'Pod', name: 'web-0', namespace: 'shop' } },
      { addresses: ['10.0.0.2'], conditions: { ready: true, serving: true, terminating: false }, zone: 'z', hints: { forZones: [{ name: 'z' }] } },
      { addresses: ['10.0.0.3'], conditions: { ready: false } },
      { addresses: ['10.0.0.4'] },
      { addresses: ['10.0.0.5'], conditions: { serving: true, ready: true } },
      { addresses: ['10.0.0.6'], conditions: { ready: true, future: 'x' } as EndpointConditions },
    ],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  });
}

describe('sharedConditions', () => {
  it('gives one frozen object per combination of boolean fields in the API order', () => {
    const a = sharedConditions({ ready: true, serving: true, terminating: false });
    expect(a).toEqual({ ready: true, serving: true, terminating: false });
    expect(Object.keys(a ?? {})).toEqual(['ready', 'serving', 'terminating']);
    expect(Object.isFrozen(a)).toBe(true);
    expect(sharedConditions({ ready: true, serving: true, terminating: false })).toBe(a);
    expect(sharedConditions({ ready: false })).toEqual({ ready: false });
    expect(sharedConditions({ serving: true })).toEqual({ serving: true });
    expect(sharedConditions({ terminating: true })).not.toBe(sharedConditions({ terminating: false }));
    expect(sharedConditions({})).toEqual({});
  });

  it('shares nothing it could not give back field for field: another order, another field, another type', () => {
    expect(sharedConditions({ serving: true, ready: true })).toBeUndefined();
    expect(sharedConditions({ ready: true, future: 'x' } as EndpointConditions)).toBeUndefined();
    expect(sharedConditions({ ready: null } as unknown as EndpointConditions)).toBeUndefined();
  });
});

describe('sharedPorts', () => {
  it('gives one frozen copy per list of equal ports, fields and order, and leaves its input as it was', () => {
    const input: SlicePort[] = [{ name: 'http', port: 80, protocol: 'TCP' }];
    const shared = sharedPorts(input);
    expect(shared).toEqual(input);
    expect(shared).not.toBe(input);
    expect(Object.isFrozen(input) || Object.isFrozen(input[0])).toBe(false);
    expect(Object.isFrozen(shared) && Object.isFrozen(shared?.[0])).toBe(true);
    expect(sharedPorts([{ name: 'http', port: 80, protocol: 'TCP' }])).toBe(shared);
    expect(sharedPorts([{ name: 'http', protocol: 'TCP', port: 80 }])).not.toBe(shared);
    expect(sharedPorts([{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }])).not.toBe(shared);
    expect(sharedPorts([{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'https', port: 443, protocol: 'TCP' }])).toHaveLength(2);
  });

  it('shares no list with a port holding anything but strings and numbers', () => {
    expect(sharedPorts([{ name: 'http', port: 80, future: { x: 1 } } as SlicePort])).toBeUndefined();
    expect(sharedPorts([{ name: 'http', port: null } as unknown as SlicePort])).toBeUndefined();
    expect(sharedPorts([null as unknown as SlicePort])).toBeUndefined();
  });

  it('shares no list longer than 512 characters of JSON: a tenant cannot fill the table with large lists', () => {
    const long = Array.from({ length: 20 }, (_, port) => ({ name: `port-${port}`, port, protocol: 'TCP' }));
    expect(JSON.stringify(long).length).toBeGreaterThan(512);
    expect(sharedPorts(long)).toBeUndefined();
    expect(sharedPorts(long.slice(0, 5))).toEqual(long.slice(0, 5));
  });

  it('keeps at most 4096 lists: past them it starts over', () => {
    const first = sharedPorts([{ name: 'bounded', port: 1 }]);
    for (let port = 2; port <= 4097; port += 1) sharedPorts([{ name: 'bounded', port }]);
    const again = sharedPorts([{ name: 'bounded', port: 1 }]);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});

describe('cachedVirtualSlice', () => {
  it('gives slices with equal ports one shared list, and a slice without endpoints its shared ports too', () => {
    const a = cachedVirtualSlice(served());
    const b = cachedVirtualSlice({ ...served(), endpoints: null });
    expect(a.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);
    expect(b.ports).toBe(a.ports);
    expect(b.endpoints).toBeNull();
  });

  it('keeps every field but managedFields, equal and in order, with shared conditions where they can be', () => {
    const object = served();
    const cached = cachedVirtualSlice(object);
    const metadata = withoutManagedFields(object).metadata;
    expect(cached).toEqual({ ...object, metadata });
    expect(JSON.stringify(cached)).toBe(JSON.stringify({ ...object, metadata }));
    const [first, second, third, fourth, fifth, sixth] = cached.endpoints ?? [];
    expect(first?.conditions).toBe(second?.conditions);
    expect(first?.targetRef).toBe(object.endpoints?.[0]?.targetRef);
    expect(third?.conditions).toBe(sharedConditions({ ready: false }));
    expect(fourth).toBe(object.endpoints?.[3]);
    expect(fifth).toBe(object.endpoints?.[4]);
    expect(sixth).toBe(object.endpoints?.[5]);
  });

  it('leaves a slice without endpoints as withoutManagedFields leaves it', () => {
    const object: EndpointSlice = { metadata: { name: 'a' }, addressType: 'IPv4', endpoints: null };
    expect(cachedVirtualSlice(object)).toBe(object);
  });

  it('is the virtual slices transform', () => {
    expect(VIRTUAL_SLICE.name).toBe('virtual-slice');
    expect(VIRTUAL_SLICE.apply(served()).endpoints?.[0]?.conditions).toBe(sharedConditions({ ready: true, serving: true, terminating: false }));
    // Its informer lists pages without managedFields (it drops them anyway).
    expect(VIRTUAL_SLICE.dropsManagedFields).toBe(true);
  });
});
