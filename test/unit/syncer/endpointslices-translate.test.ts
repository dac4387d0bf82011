import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { objectKey } from '../../../src/kube/object-key.js';
import { defaultConfig } from '../../../src/config/index.js';
import type { Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import type { EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';
import { endpointSlicesResource } from '../../../src/syncer/endpointslices/endpointslices-resource.js';
import { cachedHostSlice, hostSliceTransform } from '../../../src/syncer/endpointslices/cached-host-slice.js';
import { hostSliceFields, hostSliceLabels, sliceServiceName, translateSliceEndpointsToHost } from '../../../src/syncer/endpointslices/translate.js';
import { sliceServiceKey } from '../../../src/syncer/endpointslices/endpointslices-definition.js';
import { VirtualKeyIndex } from '../../../src/syncer/virtual-key-index.js';
import { cachedBodyDigest, hostBodyDigest } from '../../../src/syncer/host-changes.js';
import { TerminalError } from '../../../src/syncer/reconcile-outcome.js';
import { createTranslator } from '../../../src/translate/translator.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const pods = { hostRef: ({ name, namespace }: { name: string; namespace: string }) => ({ name: `${name}-x-${namespace}-x-vc`, namespace: 'host-ns' }) };
const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });

function slice(name: string, labels: Record<string, string> | undefined, extra: Partial<EndpointSlice> = {}): EndpointSlice {
  return { metadata: { name, namespace: 'shop', uid: `${name}-uid`, ...(labels !== undefined ? { labels } : {}) }, addressType: 'IPv4', ...extra };
}

describe('translateSliceEndpointsToHost', () => {
  it('points Pod targetRefs at the host Pods (uid and resourceVersion cleared) and copies every other field unchanged', () => {
    const endpoints = deepFreeze([
      {
        addresses: ['10.0.0.1'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-0',
        nodeName: 'node-a',
        zone: 'zone-a',
        hints: { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-a' }] },
        deprecatedTopology: { 'topology.kubernetes.io/region': 'r1' },
        targetRef: { kind: 'Pod', name: 'web-0', namespace: 'shop', uid: 'u', resourceVersion: '7' },
      },
      { addresses: ['10.0.0.2'], targetRef: { kind: 'Pod', name: 'web-1', uid: 'v' } },
      { addresses: ['10.0.0.3'], targetRef: { kind: 'Node', name: 'node-b', uid: 'n' } },
      { addresses: ['10.0.0.4'] },
    ]);
    expect(translateSliceEndpointsToHost(endpoints, 'shop', pods)).toEqual([
      {
        addresses: ['10.0.0.1'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-0',
        nodeName: 'node-a',
        zone: 'zone-a',
        hints: { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-a' }] },
        deprecatedTopology: { 'topology.kubernetes.io/region': 'r1' },
        targetRef: { kind: 'Pod', name: 'web-0-x-shop-x-vc', namespace: 'host-ns' },
      },
      // A namespace-less Pod reference is read as the slice's namespace.
      { addresses: ['10.0.0.2'], targetRef: { kind: 'Pod', name: 'web-1-x-shop-x-vc', namespace: 'host-ns' } },
      { addresses: ['10.0.0.3'], targetRef: { kind: 'Node', name: 'node-b', uid: 'n' } },
      { addresses: ['10.0.0.4'] },
    ]);
  });

  it('answers an empty list for absent and null endpoints', () => {
    expect(translateSliceEndpointsToHost(undefined, 'shop', pods)).toEqual([]);
    expect(translateSliceEndpointsToHost(null, 'shop', pods)).toEqual([]);
  });
});

describe('hostSliceFields', () => {
  it('copies addressType and ports, translates endpoints, and leaves out empty lists', () => {
    const virtual = deepFreeze(slice('web-1', { 'kubernetes.io/service-name': 'web' }, {
      endpoints: [{ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', name: 'p', namespace: 'shop', uid: 'u' } }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }],
    }));
    expect(hostSliceFields(virtual, pods)).toEqual({
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', name: 'p-x-shop-x-vc', namespace: 'host-ns' } }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }],
    });
    expect(hostSliceFields(deepFreeze(slice('empty', undefined, { endpoints: null, ports: [] })), pods)).toEqual({ addressType: 'IPv4' });
  });
});

describe('the host slice labels', () => {
  it('name the Service by the service-name label, ignoring an empty value', () => {
    expect(sliceServiceName(slice('a', { 'kubernetes.io/service-name': 'web' }))).toBe('web');
    expect(sliceServiceName(slice('a', { 'kubernetes.io/service-name': '' }))).toBeUndefined();
    expect(sliceServiceName(slice('a', undefined))).toBeUndefined();
  });

  it('carry vcsync as managed-by, never a host controller, and the host Service name when there is one', () => {
    expect(hostSliceLabels('web-x-shop-x-vc')).toEqual({ 'kubernetes.io/service-name': 'web-x-shop-x-vc', 'endpointslice.kubernetes.io/managed-by': 'vcsync.vcluster.loft.sh' });
    expect(hostSliceLabels(undefined)).toEqual({ 'endpointslice.kubernetes.io/managed-by': 'vcsync.vcluster.loft.sh' });
  });

  it('point a long Service name at the host Service\'s hashed name (the translator\'s), not the plain concatenation', () => {
    const long = 'a'.repeat(60);
    const resource = endpointSlicesResource({ get: () => ({ spec: {} }) });
    const labels = resource.hostLabels?.(slice('s', { 'kubernetes.io/service-name': long }), translator) ?? {};
    // safeConcatName: the first 52 characters of the joined name, `-`, 10 hex of its SHA-256.
    const joined = `${long}-x-shop-x-vc`;
    const hashed = `${joined.slice(0, 52)}-${createHash('sha256').update(joined).digest('hex').slice(0, 10)}`;
    expect(labels['kubernetes.io/service-name']).toBe(hashed);
    expect(hashed).toHaveLength(63);
    expect(hashed).not.toBe(joined);
    const placement = translator.hostRef({ name: long, namespace: 'shop' });
    expect(placement.synced && placement.ref.name).toBe(hashed);
  });
});

describe('the EndpointSlices rules', () => {
  const services = new Map<string, Service>([
    ['shop/open', { spec: {} }],
    ['shop/selected', { spec: { selector: { app: 'x' } } }],
    ['default/kubernetes', { spec: {} }],
  ]);
  const resource = endpointSlicesResource({ get: (key) => services.get(key) });

  it.each<[string, EndpointSlice, { sync: boolean; reason?: string }]>([
    ['a slice of a selector-less Service', slice('open-1', { 'kubernetes.io/service-name': 'open' }), { sync: true }],
    ['a slice of a Service with a selector', slice('sel-1', { 'kubernetes.io/service-name': 'selected' }), { sync: false, reason: 'has a selector' }],
    ['a slice of a missing Service', slice('gone-1', { 'kubernetes.io/service-name': 'gone' }), { sync: false, reason: 'no virtual Service gone' }],
    [
      'a slice of default/kubernetes under another name',
      { metadata: { name: 'kubernetes-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } } },
      { sync: false, reason: 'default/kubernetes' },
    ],
  ])('%s', (_name, virtual, expected) => {
    const decision = resource.decide(deepFreeze(virtual));
    expect(decision.sync).toBe(expected.sync);
    if (!decision.sync) expect(decision.reason).toContain(expected.reason);
  });

  it('never syncs the key default/kubernetes', () => {
    expect(resource.ignores('default/kubernetes')).toContain('never synced');
    expect(resource.ignores('shop/kubernetes')).toBeUndefined();
  });

  it('fails terminally, saying what to do, for a slice without the service-name label', () => {
    let thrown: unknown;
    try {
      resource.decide(slice('orphan', { app: 'x' }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TerminalError);
    expect((thrown as TerminalError).code).toBe('SliceWithoutService');
    expect((thrown as TerminalError).message).toBe(
      'EndpointSlice shop/orphan has no label kubernetes.io/service-name, so vcsync cannot tell which Service it belongs to and does not sync it; ' +
        'label it with the name of a Service without a selector in namespace shop',
    );
  });

  it('recreates a host slice whose addressType changed, and updates any other', () => {
    const host = slice('h', undefined, { addressType: 'IPv4' });
    expect(resource.recreateReason?.(host, { ...host, addressType: 'IPv6' } as EndpointSlice)).toBe(
      'its addressType changed from IPv4 to IPv6, which the API server does not let an update change',
    );
    expect(resource.recreateReason?.(host, { ...host, endpoints: [] } as EndpointSlice)).toBeUndefined();
    expect(resource.replacesForeignHostObject).toBe(true);
  });
});

describe('cachedHostSlice', () => {
  const host = deepFreeze(slice('h', { a: 'b' }, { endpoints: [{ addresses: ['10.0.0.1'] }], metadata: { name: 'h', managedFields: [{ manager: 'x' }] } }));

  it('keeps addressType beside the digest of the body, and no managedFields', () => {
    const cached = cachedHostSlice(host, false);
    expect(cached.addressType).toBe('IPv4');
    expect(cached.endpoints).toBeUndefined();
    expect(cached.metadata?.['managedFields']).toBeUndefined();
    expect(cachedBodyDigest(cached)).toBe(hostBodyDigest(host));
  });

  it('keeps the whole body when asked to', () => {
    expect(cachedHostSlice(host, true).endpoints).toEqual([{ addresses: ['10.0.0.1'] }]);
  });

  it('is a transform whose informer lists pages without managedFields, with bodies kept or not', () => {
    for (const keep of [false, true]) {
      const transform = hostSliceTransform(() => keep);
      expect(transform.dropsManagedFields).toBe(true);
      expect(transform.apply(host).metadata?.['managedFields']).toBeUndefined();
    }
  });
});

describe('the index of slices by the Service they name', () => {
  it('indexes slices by the Service they name, follows label changes and forgets deleted slices', () => {
    const index = new VirtualKeyIndex(sliceServiceKey);
    const a = slice('a', { 'kubernetes.io/service-name': 'web' });
    const b = slice('b', { 'kubernetes.io/service-name': 'web' });
    const c = slice('c', undefined);
    void index.handler.onAdd?.(a, true, objectKey(a));
    void index.handler.onAdd?.(b, true, objectKey(b));
    void index.handler.onAdd?.(c, true, objectKey(c));
    expect(index.keysOf('shop/web').sort()).toEqual(['shop/a', 'shop/b']);
    expect(index.keysOf('other/web')).toEqual([]);

    const moved = slice('b', { 'kubernetes.io/service-name': 'api' });
    void index.handler.onUpdate?.(b, moved, objectKey(moved));
    expect(index.keysOf('shop/web')).toEqual(['shop/a']);
    expect(index.keysOf('shop/api')).toEqual(['shop/b']);

    void index.handler.onDelete?.(a, objectKey(a));
    expect(index.keysOf('shop/web')).toEqual([]);
    void index.handler.onUpdate?.(moved, c, objectKey(c));
    expect(index.keysOf('shop/api')).toEqual(['shop/b']);
  });
});
