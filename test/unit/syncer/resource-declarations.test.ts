import { describe, expect, it } from 'vitest';
import { endpointSlicesDeclaration } from '../../../src/syncer/endpointslices/endpointslices-declaration.js';
import { declaredResources, registryConfigSchema, SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import type { SyncableResource } from '../../../src/syncer/syncable-resource.js';

describe('the registry’s declared resources', () => {
  it('each has one metrics label, one config key and RBAC for both sides; none shared', () => {
    const declared = declaredResources();
    expect(declared.map((resource) => [resource.name, resource.config.key])).toEqual([
      ['endpoints', 'endpoints'],
      ['endpointslices', 'endpointSlices'],
    ]);
    for (const resource of declared) {
      expect(resource.name, 'a bounded metrics label value').toMatch(/^[a-z]+$/);
      expect(resource.rbac.virtual.length).toBeGreaterThan(0);
      expect(resource.rbac.host.length).toBeGreaterThan(0);
    }
  });

  it('a declared-only resource gives way to a registered resource with its section', () => {
    const registered = { ...SYNCABLE_RESOURCES[0], ...endpointSlicesDeclaration } as SyncableResource;
    const declared = declaredResources([...SYNCABLE_RESOURCES, registered]);
    expect(declared.map((resource) => resource.config.key)).toEqual(['endpoints', 'endpointSlices']);
    expect(declared[1]).toBe(registered);
    expect(() => registryConfigSchema(declared)).not.toThrow();
  });

  it('assembles one schema per list, so its validator compiles once', () => {
    expect(registryConfigSchema()).toBe(registryConfigSchema(SYNCABLE_RESOURCES));
    expect(registryConfigSchema([])).not.toBe(registryConfigSchema());
  });
});
