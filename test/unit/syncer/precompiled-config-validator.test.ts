import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { assembleConfigSchema, configSchemaFingerprint, newConfigAjv } from '../../../src/config/config-schema.js';
import { precompiledConfigValidator } from '../../../src/syncer/precompiled-config-validator.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';

/** Config data as written (after YAML parsing), valid and not, reaching every kind of keyword. */
const CONFIGS: readonly [string, unknown][] = [
  ['empty', {}],
  ['every section vcsync reads', { sync: { toHost: { endpoints: { enabled: true, patches: [{ path: 'subsets[*].addresses[*].ip', expression: 'value' }] }, endpointSlices: { enabled: false }, namespaces: { enabled: true, mappingsOnly: true, mappings: { byName: { 'a-*': 'b-*' } } } } }, privateNodes: { enabled: false } }],
  ['vcluster sections accepted as written', { controlPlane: { anything: [1, 2] }, sync: { toHost: { pods: { enabled: 'yes' } }, fromHost: { nodes: { enabled: true } } } }],
  ['a misspelt key', { sync: { toHots: {} } }],
  ['an unknown resource key', { sync: { toHost: { endpoint: { enabled: true } } } }],
  ['wrong types everywhere', { sync: { toHost: { endpoints: { enabled: 'true', patches: {} }, namespaces: { enabled: 1, mappings: { byName: { a: 2 } } } } }, privateNodes: [] }],
  ['an empty path and expression', { sync: { toHost: { endpoints: { patches: [{ path: '', expression: '' }] } } } }],
  ['a patch with unknown options', { sync: { toHost: { endpoints: { patches: [{ path: 'x', reference: { kind: 'Secret', name: 'x' }, labels: { a: 1 } }] } } } }],
  ['not a mapping', ['a']],
  ['null', null],
];

/** What parsing reads of an error (and what users see through it). */
const essentials = (errors: readonly ErrorObject[] | null | undefined): unknown =>
  (errors ?? []).map(({ keyword, instancePath, schemaPath, params, message, data }) => ({ keyword, instancePath, schemaPath, params, message, data }));

describe('the precompiled config validator of the resource registry', () => {
  it('is what the registry schema validates with, generated from that very schema', () => {
    const schema = registryConfigSchema(SYNCABLE_RESOURCES);
    expect(precompiledConfigValidator.fingerprint).toBe(configSchemaFingerprint(schema.schema));
    expect(schema.validator()).toBe(precompiledConfigValidator.validate);
  });

  it.each(CONFIGS)('judges %s exactly as ajv compiling the schema at run time', (_name, data) => {
    const runtime = newConfigAjv().compile(registryConfigSchema(SYNCABLE_RESOURCES).schema);
    const precompiled = precompiledConfigValidator.validate;
    expect(precompiled(structuredClone(data))).toBe(runtime(structuredClone(data)));
    expect(essentials(precompiled.errors)).toEqual(essentials(runtime.errors));
  });

  it('is not used for a schema it was not generated from: that one is compiled at its first validation', () => {
    const schema = assembleConfigSchema(
      SYNCABLE_RESOURCES.slice(0, 1).map((resource) => resource.config),
      { precompiled: precompiledConfigValidator },
    );
    const validate = schema.validator();
    expect(validate).not.toBe(precompiledConfigValidator.validate);
    // Without the endpointSlices section, vcluster's key takes any content here; the registry's checks it.
    const written = { sync: { toHost: { endpointSlices: { enabled: 'yes' } } } };
    expect(validate(written)).toBe(true);
    expect(precompiledConfigValidator.validate(written)).toBe(false);
  });
});
