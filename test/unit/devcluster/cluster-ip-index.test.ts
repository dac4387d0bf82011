import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allocateClusterIp, ClusterIpIndex, inServiceRange } from '../../../src/devcluster/cluster-ip-allocator.js';
import { openStore } from '../../../src/devcluster/storage/open-store.js';
import type { Store } from '../../../src/devcluster/storage/types.js';

const SERVICES = 'core/v1/services';
const service = (name: string, clusterIP: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { clusterIP } });

describe('ClusterIpIndex', () => {
  let store: Store;
  beforeEach(async () => { store = await openStore({}); });
  afterEach(async () => { await store.close(); });

  it('sees Services stored before and after it is first used, and frees deleted ones', async () => {
    await store.create(SERVICES, service('a', '10.96.0.10'));
    const index = new ClusterIpIndex(store, SERVICES);
    expect(index.has('10.96.0.10')).toBe(true);
    expect(index.has('10.96.0.11')).toBe(false);

    await store.create(SERVICES, service('b', '10.96.0.11'));
    await store.create(SERVICES, service('headless', 'None'));
    expect(index.has('10.96.0.11')).toBe(true);
    expect(index.has('None')).toBe(false);

    await store.delete({ resource: SERVICES, namespace: 'default', name: 'a' });
    expect(index.has('10.96.0.10')).toBe(false);
  });

  it('follows an IP change of one Service', async () => {
    const index = new ClusterIpIndex(store, SERVICES);
    const created = await store.create(SERVICES, service('a', '10.96.0.20'));
    expect(index.has('10.96.0.20')).toBe(true);
    await store.update(SERVICES, { ...service('a', '10.96.0.21'), metadata: { ...created.metadata } });
    expect(index.has('10.96.0.20')).toBe(false);
    expect(index.has('10.96.0.21')).toBe(true);
  });
});

describe('allocateClusterIp', () => {
  it('never returns a taken address and stays in the service range', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 500; i += 1) {
      const ip = allocateClusterIp((candidate) => taken.has(candidate));
      expect(ip).toBeDefined();
      expect(inServiceRange(ip ?? '')).toBe(true);
      expect(taken.has(ip ?? '')).toBe(false);
      taken.add(ip ?? '');
    }
  });

  it('answers undefined when every address is taken', () => {
    expect(allocateClusterIp(() => true)).toBeUndefined();
  });
});
