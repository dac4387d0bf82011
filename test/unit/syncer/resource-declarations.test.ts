import { describe, expect, it } from 'vitest';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';

describe('the registry’s resources', () => {
  it('each has one metrics label, one config key and RBAC for both sides; none shared', () => {
    const declared = SYNCABLE_RESOURCES;
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

  it('assembles one schema per list, so its validator compiles once', () => {
    expect(registryConfigSchema()).toBe(registryConfigSchema(SYNCABLE_RESOURCES));
    expect(registryConfigSchema([])).not.toBe(registryConfigSchema());
  });
});
