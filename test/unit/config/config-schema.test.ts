import { describe, expect, it } from 'vitest';
import { checkConfigText } from '../../../src/config/check-config.js';
import { applyConfigDefaults } from '../../../src/config/config-defaults.js';
import { ConfigErrorCode, type ConfigError } from '../../../src/config/config-error.js';
import { assembleConfigSchema } from '../../../src/config/config-schema.js';
import { resourceSectionSchema, sectionConfig, type ConfigSection } from '../../../src/config/config-section.js';
import { deepFreeze } from '../../../src/apimachinery/index.js';
import { parseConfig } from '../../../src/config/parse-config.js';
import { endpointsConfigSection } from '../../../src/syncer/endpoints/config-section.js';
import { endpointSlicesConfigSection } from '../../../src/syncer/endpointslices/config-section.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const FILE = 'vcluster.yaml';

/** A made-up section: `key`, off by default, no rules, no validators. */
function section(key: string, overrides: Partial<ConfigSection> = {}): ConfigSection {
  return {
    key,
    schema: resourceSectionSchema(false, { section: `${key} syncing.`, enabled: `Sync ${key}.`, patches: `Patches of ${key}.` }),
    defaults: deepFreeze({ enabled: false, patches: [] }),
    rules: [],
    validators: [],
    ...overrides,
  };
}

function errorsOf(text: string, sections: readonly ConfigSection[]): readonly ConfigError[] {
  const result = parseConfig(text, FILE, assembleConfigSchema(sections));
  return result.ok ? [] : result.errors;
}

describe('assembleConfigSchema: the schema of the sections it is handed', () => {
  it('closes exactly the handed sections under sync.toHost; other vcluster keys stay open', () => {
    for (const sections of [[], [section('configMaps')], [section('configMaps'), section('secrets'), section('pods')]]) {
      const { schema } = assembleConfigSchema(sections);
      const toHost = (schema as unknown as { properties: { sync: { properties: { toHost: { properties: Record<string, { additionalProperties?: boolean }> } } } } })
        .properties.sync.properties.toHost.properties;
      const closed = Object.entries(toHost).filter(([, child]) => child.additionalProperties === false).map(([key]) => key);
      expect(closed.sort()).toEqual([...sections.map((s) => s.key), 'namespaces'].sort());
    }
    expect(errorsOf('sync: { toHost: { configMaps: { anything: 1 } } }\n', [])).toEqual([]);
    expect(errorsOf('sync: { toHost: { configMaps: { anything: 1 } } }\n', [section('configMaps')])).toEqual([
      expect.objectContaining({ code: ConfigErrorCode.UNKNOWN_KEY, path: 'sync.toHost.configMaps.anything', line: 1, column: 33 }),
    ]);
  });

  it('keeps vcluster’s key order and puts a key vcluster lacks after it', () => {
    const { schema } = assembleConfigSchema([section('zzMadeUp'), section('configMaps')]);
    const keys = Object.keys((schema as unknown as { properties: { sync: { properties: { toHost: { properties: object } } } } }).properties.sync.properties.toHost.properties);
    expect(keys.indexOf('configMaps')).toBeLessThan(keys.indexOf('zzMadeUp'));
    expect(keys.at(-1)).toBe('zzMadeUp');
  });

  it('refuses two sections with one key, and the key vcsync reads itself', () => {
    expect(() => assembleConfigSchema([section('configMaps'), section('configMaps')])).toThrow(/sync\.toHost\.configMaps is handed twice/);
    expect(() => assembleConfigSchema([section('namespaces')])).toThrow(/sync\.toHost\.namespaces: the key is vcsync's own/);
  });

  it('applies each section’s defaults, keeps what is written, and reads an empty section as absent', () => {
    const sections = [section('configMaps'), section('secrets', { defaults: deepFreeze({ enabled: true, patches: [] }) })];
    const result = parseConfig('sync:\n  toHost:\n    configMaps:\n    secrets:\n      patches: [{ path: a, expression: v }]\n', FILE, assembleConfigSchema(sections));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(sectionConfig(result.config, sections[0] as ConfigSection)).toEqual({ enabled: false, patches: [] });
    expect(sectionConfig(result.config, sections[1] as ConfigSection)).toEqual({ enabled: true, patches: [{ path: 'a', expression: 'v' }] });
    expect(Object.isFrozen(result.config.sync.toHost['secrets'])).toBe(true);
    // A config without the section (a test's defaultConfig()) reads the section's defaults.
    expect(sectionConfig(applyConfigDefaults({}, []), sections[1] as ConfigSection)).toEqual({ enabled: true, patches: [] });
  });

  it('runs each section’s rules and validators, errors located at the section’s own path', async () => {
    const configMaps = section('configMaps', {
      rules: [(written) => ((written as { global?: unknown }).global === undefined ? [] : [{ code: 'TEST_RULE', path: ['sync', 'toHost', 'configMaps', 'enabled'], message: 'not with global' }])],
      validators: [(_written, source) => [{ code: 'TEST_VALIDATOR', path: 'global', file: source.fileName, line: 1, column: 9, message: 'checked' }]],
    });
    const text = 'global: {}\nsync:\n  toHost:\n    configMaps:\n      enabled: true\n';
    const result = await checkConfigText(text, FILE, assembleConfigSchema([configMaps]));
    expect(!result.ok && result.errors.map((error) => `${error.line}:${error.column} ${error.path} ${error.code}`)).toEqual([
      '1:9 global TEST_VALIDATOR',
      '5:16 sync.toHost.configMaps.enabled TEST_RULE',
    ]);
  });
});

describe('the registry’s sections: endpoints and endpointSlices', () => {
  it('both on by default, no patches', () => {
    const result = parseConfig('', FILE, registryConfigSchema());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(sectionConfig(result.config, endpointsConfigSection)).toEqual({ enabled: true, patches: [] });
    expect(sectionConfig(result.config, endpointSlicesConfigSection)).toEqual({ enabled: true, patches: [] });
  });

  it('suggests endpointSlices for endpointslices, and names it among the keys of sync.toHost', () => {
    const errors = errorsOf('sync:\n  toHost:\n    endpointslices:\n      enabled: false\n', [endpointsConfigSection, endpointSlicesConfigSection]);
    expect(errors).toEqual([
      expect.objectContaining({ code: ConfigErrorCode.UNKNOWN_KEY, path: 'sync.toHost.endpointslices', line: 3, column: 5 }),
    ]);
    expect(errors[0]?.message).toMatch(/^unknown key; did you mean "endpointSlices"\?/);
  });

  it('checks endpointSlices to its leaves, and compiles its patches with errors at its own path', async () => {
    expect(errorsOf('sync: { toHost: { endpointSlices: { enabled: "no", patchs: [] } } }\n', [endpointSlicesConfigSection]).map((error) => [error.path, error.code])).toEqual([
      ['sync.toHost.endpointSlices.enabled', ConfigErrorCode.INVALID_TYPE],
      ['sync.toHost.endpointSlices.patchs', ConfigErrorCode.UNKNOWN_KEY],
    ]);
    const text = [
      'sync:',
      '  toHost:',
      '    endpointSlices:',
      '      patches:',
      '        - path: endpoints[*].addresses[*]',
      '          expression: "value +"',
      '        - path: metadata.name',
      '          expression: value',
      '',
    ].join('\n');
    const result = await checkConfigText(text, FILE, registryConfigSchema());
    expect(!result.ok && result.errors.map((error) => `${error.line} ${error.path}`)).toEqual([
      '6 sync.toHost.endpointSlices.patches[0].expression',
      '7 sync.toHost.endpointSlices.patches[1].path',
    ]);
  });
});
