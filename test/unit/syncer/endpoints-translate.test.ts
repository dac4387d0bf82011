import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/index.js';
import { endpointsResource, KUBERNETES_ENDPOINTS_KEY } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints, Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import { serviceWantsEndpointsSync, translateSubsetsToHost } from '../../../src/syncer/endpoints/translate.js';
import { createTranslator } from '../../../src/translate/translator.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const pods = { hostRef: ({ name, namespace }: { name: string; namespace: string }) => ({ name: `${name}-x-${namespace}-x-vc`, namespace: 'host-ns' }) };

describe('serviceWantsEndpointsSync', () => {
  it.each<[string, Service | undefined, boolean]>([
    ['no Service', undefined, false],
    ['Service without spec', {}, true],
    ['Service without selector', { spec: {} }, true],
    ['Service with an empty selector', { spec: { selector: {} } }, true],
    ['Service with a null selector', { spec: { selector: null } }, true],
    ['Service with a selector', { spec: { selector: { app: 'web' } } }, false],
  ])('%s → %s', (_name, service, expected) => {
    expect(serviceWantsEndpointsSync(service)).toBe(expected);
  });
});

describe('translateSubsetsToHost', () => {
  it('translates Pod targetRefs, clears their uid and resourceVersion, and leaves the rest alone', () => {
    const subsets = deepFreeze([
      {
        addresses: [
          { ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'web-1', namespace: 'shop', uid: 'u', resourceVersion: '7' } },
          { ip: '10.0.0.2', targetRef: { kind: 'Node', name: 'n2', uid: 'x' } },
          { ip: '10.0.0.3' },
        ],
        notReadyAddresses: [{ ip: '10.0.0.4', targetRef: { kind: 'Pod', name: 'web-2', uid: 'v' } }],
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      },
    ]);
    expect(translateSubsetsToHost(subsets, 'shop', pods)).toEqual([
      {
        addresses: [
          { ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'web-1-x-shop-x-vc', namespace: 'host-ns' } },
          { ip: '10.0.0.2', targetRef: { kind: 'Node', name: 'n2', uid: 'x' } },
          { ip: '10.0.0.3' },
        ],
        // a Pod ref without a namespace is in the Endpoints' own namespace
        notReadyAddresses: [{ ip: '10.0.0.4', targetRef: { kind: 'Pod', name: 'web-2-x-shop-x-vc', namespace: 'host-ns' } }],
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      },
    ]);
  });

  it('returns a new structure sharing nothing with the input', () => {
    const subsets = [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }];
    const out = translateSubsetsToHost(subsets, 'ns', pods);
    expect(out).toEqual(subsets);
    expect(out[0]).not.toBe(subsets[0]);
    expect(out[0]?.addresses?.[0]).not.toBe(subsets[0]?.addresses[0]);
    expect(out[0]?.ports?.[0]).not.toBe(subsets[0]?.ports[0]);
  });

  it('maps absent subsets to none', () => {
    expect(translateSubsetsToHost(undefined, 'ns', pods)).toEqual([]);
  });
});

describe('endpointsResource', () => {
  const services = new Map<string, Service>([
    ['shop/plain', { spec: {} }],
    ['shop/selected', { spec: { selector: { app: 'x' } } }],
  ]);
  const resource = endpointsResource({ get: (key) => services.get(key) });
  const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'vcluster-vc', config: defaultConfig() });
  const endpoints = (name: string): Endpoints => ({ metadata: { name, namespace: 'shop' } });

  it('never syncs default/kubernetes', () => {
    expect(resource.ignores(KUBERNETES_ENDPOINTS_KEY)).toContain('never synced');
    expect(resource.ignores('default/web')).toBeUndefined();
  });

  it.each([
    ['plain', true],
    ['selected', false],
    ['missing', false],
  ])('decides from the Service of the same name (%s → %s)', (name, sync) => {
    expect(resource.decide(endpoints(name)).sync).toBe(sync);
  });

  it('does not copy the leader annotation', () => {
    expect(resource.excludedAnnotations).toContain('control-plane.alpha.kubernetes.io/leader');
  });

  it('writes host subsets with Pod refs into the host namespace, and nothing for no subsets', () => {
    const virtual: Endpoints = deepFreeze({
      metadata: { name: 'plain', namespace: 'shop' },
      subsets: [{ addresses: [{ ip: '10.0.0.9', targetRef: { kind: 'Pod', name: 'p', namespace: 'shop' } }] }],
    });
    expect(resource.hostFields(virtual, translator)).toEqual({
      subsets: [{ addresses: [{ ip: '10.0.0.9', targetRef: { kind: 'Pod', name: 'p-x-shop-x-vc', namespace: 'vcluster-vc' } }] }],
    });
    expect(resource.hostFields(endpoints('plain'), translator)).toEqual({});
  });
});
