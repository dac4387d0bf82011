import { describe, expect, it } from 'vitest';
import { ConfigErrorCode, formatConfigError, type ConfigError } from '../../../src/config/config-error.js';
import { configErrorAt, parseConfig } from '../../../src/config/parse-config.js';

const FILE = 'config/vcluster.yaml';

function errorsOf(text: string): ConfigError[] {
  const result = parseConfig(text, FILE);
  if (result.ok) throw new Error('expected errors, got a valid config');
  return [...result.errors];
}

function only(text: string): ConfigError {
  const errors = errorsOf(text);
  expect(errors, errors.map(formatConfigError).join('\n')).toHaveLength(1);
  return errors[0] as ConfigError;
}

describe('parseConfig: valid files', () => {
  it('treats an empty file, or one with only comments, as all defaults', () => {
    for (const text of ['', '\n', '# nothing here\n', '---\n']) {
      const result = parseConfig(text, FILE);
      expect(result.ok).toBe(true);
      if (!result.ok) continue;
      expect(result.config.sync.toHost.endpoints).toEqual({ enabled: true, patches: [] });
      expect(result.config.sync.toHost.namespaces).toEqual({
        enabled: false,
        mappingsOnly: false,
        mappings: { byName: {} },
        extraLabels: {},
        patches: [],
      });
    }
  });

  it('accepts and keeps keys vcsync does not own, and fills defaults next to given values', () => {
    const text = `
controlPlane: { distro: { k8s: { enabled: true } } }
networking: { advanced: { clusterDomain: cluster.local } }
policies: { resourceQuota: { enabled: true } }
exportKubeConfig: { context: my }
rbac: {}
plugins: {}
experimental: { deploy: {} }
integrations: { metricsServer: { enabled: false } }
telemetry: { enabled: false }
somethingNew: 1
sync:
  fromHost: { nodes: { enabled: true } }
  toHost:
    pods: { enabled: true }
    secrets: { enabled: true, all: false }
    configMaps: { enabled: false }
    services: { enabled: true }
    endpoints:
      patches:
        - path: metadata.annotations["a.b/c"]
          expression: '"x"'
`;
    const result = parseConfig(text, FILE);
    expect(result.ok, result.ok ? '' : result.errors.map(formatConfigError).join('\n')).toBe(true);
    if (!result.ok) return;
    expect(result.config.sync.toHost.endpoints.enabled).toBe(true);
    expect(result.config.sync.toHost.endpoints.patches).toEqual([{ path: 'metadata.annotations["a.b/c"]', expression: '"x"' }]);
    expect(result.config['telemetry']).toEqual({ enabled: false });
    expect(result.config.sync.toHost['pods']).toEqual({ enabled: true });
  });

  it('reads empty sections as absent and an empty labels option as {}', () => {
    const text = 'sync:\n  toHost:\n    endpoints:\n    namespaces:\n      mappings:\n';
    const result = parseConfig(text, FILE);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.config.sync.toHost.endpoints.enabled).toBe(true);
    const labels = parseConfig('sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: a\n          labels:\n', FILE);
    expect(labels.ok).toBe(true);
    if (labels.ok) expect(labels.config.sync.toHost.endpoints.patches[0]).toEqual({ path: 'a', labels: {} });
    expect(parseConfig('sync:\n', FILE).ok).toBe(true);
  });

  it('returns a deep-frozen config', () => {
    const result = parseConfig('sync: { toHost: { endpoints: { patches: [ { path: a, labels: {} } ] } } }', FILE);
    if (!result.ok) throw new Error('expected valid');
    expect(Object.isFrozen(result.config)).toBe(true);
    expect(Object.isFrozen(result.config.sync.toHost.endpoints.patches)).toBe(true);
    expect(Object.isFrozen(result.config.sync.toHost.endpoints.patches[0])).toBe(true);
    expect(() => {
      (result.config.sync.toHost.endpoints as { enabled: boolean }).enabled = false;
    }).toThrow(TypeError);
  });

  it('accepts each patch mode and a valid namespace mapping', () => {
    const text = `
sync:
  toHost:
    endpoints:
      enabled: false
      patches:
        - { path: a, expression: value, reverseExpression: value }
        - { path: b, reference: { kind: Secret, apiVersion: v1, namePath: name, namespacePath: ns } }
        - { path: c, labels: {} }
    namespaces:
      enabled: true
      mappingsOnly: true
      extraLabels: { team: a }
      mappings:
        byName:
          frontend: customer-frontend
          "team-*": "\${name}-team-*"
`;
    const result = parseConfig(text, FILE);
    expect(result.ok, result.ok ? '' : result.errors.map(formatConfigError).join('\n')).toBe(true);
    if (!result.ok) return;
    expect(result.config.sync.toHost.endpoints.enabled).toBe(false);
    expect(result.config.sync.toHost.namespaces.mappings.byName).toEqual({
      frontend: 'customer-frontend',
      'team-*': '${name}-team-*',
    });
    expect(result.source.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('parseConfig: errors', () => {
  it('names path, file, line, column, what was wrong and what is allowed', () => {
    const text = ['sync:', '  toHost:', '    endpoints:', '      enabled: yes', ''].join('\n');
    const error = only(text);
    expect(error).toEqual({
      code: ConfigErrorCode.INVALID_TYPE,
      path: 'sync.toHost.endpoints.enabled',
      file: FILE,
      line: 4,
      column: 16,
      message: 'must be a boolean (true or false), got "yes"',
    });
    expect(formatConfigError(error)).toBe(
      'config/vcluster.yaml:4:16 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "yes"',
    );
  });

  it('returns all errors, sorted by position', () => {
    const text = [
      'sync:', // 1
      '  toHost:', // 2
      '    endpoints:', // 3
      '      enabled: 3', // 4
      '      extra: true', // 5
      '      patches:', // 6
      '        - path: a', // 7
      '          expression: value', // 8
      '        - path: b', // 9
      '          expresion: value', // 10
      '        - path: a', // 11
      '          expression: 12', // 12
      '    namespaces:', // 13
      '      enabled: true', // 14
      '      mappingOnly: true', // 15
      '',
    ].join('\n');
    const errors = errorsOf(text);
    expect(errors.map((e) => [e.line, e.path, e.code])).toEqual([
      [4, 'sync.toHost.endpoints.enabled', ConfigErrorCode.INVALID_TYPE],
      [5, 'sync.toHost.endpoints.extra', ConfigErrorCode.UNKNOWN_KEY],
      [10, 'sync.toHost.endpoints.patches[1].expresion', ConfigErrorCode.UNKNOWN_KEY],
      [12, 'sync.toHost.endpoints.patches[2].expression', ConfigErrorCode.INVALID_TYPE],
      [14, 'sync.toHost.namespaces.mappings.byName', ConfigErrorCode.NAMESPACE_MAPPING],
      [15, 'sync.toHost.namespaces.mappingOnly', ConfigErrorCode.UNKNOWN_KEY],
    ]);
    const unknown = errors.find((e) => e.path.endsWith('.extra'));
    expect(unknown?.message).toBe('unknown key; allowed keys: enabled, patches');
    expect(unknown?.column).toBe(7);
    expect(errors.find((e) => e.path.endsWith('expresion'))?.message).toContain(
      'allowed keys: path, expression, reverseExpression, reference, labels',
    );
  });

  it('rejects unknown keys inside reference and labels', () => {
    const errors = errorsOf(
      'sync: { toHost: { endpoints: { patches: [ { path: a, reference: { kinds: x } }, { path: b, labels: { x: 1 } } ] } } }',
    );
    expect(errors.map((e) => e.path)).toEqual([
      'sync.toHost.endpoints.patches[0].reference.kinds',
      'sync.toHost.endpoints.patches[1].labels.x',
    ]);
    expect(errors[1]?.message).toContain('takes no keys');
  });

  it('leaves patch semantics (modes, duplicate paths) to the patch engine', () => {
    // The schema checks structure only; `vcsync validate` reports mode and duplicate errors from
    // the patch compiler, together with expression errors, so each is reported once.
    const result = parseConfig(
      'sync: { toHost: { endpoints: { patches: [ { path: a, expression: v, labels: {} }, { path: a, reverseExpression: v } ] } } }',
      FILE,
    );
    expect(result.ok).toBe(true);
  });

  it('rejects empty paths and expressions, wrong list and mapping types', () => {
    const errors = errorsOf(
      [
        'sync:',
        '  toHost:',
        '    endpoints:',
        '      patches:',
        '        - path: ""',
        '          expression: ""',
        '    namespaces: []',
        '',
      ].join('\n'),
    );
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['sync.toHost.endpoints.patches[0].path', 'must not be empty'],
      ['sync.toHost.endpoints.patches[0].expression', 'must not be empty'],
      ['sync.toHost.namespaces', 'must be a mapping (key: value), got a list'],
    ]);
    expect(only('sync: { toHost: { endpoints: { patches: { path: a } } } }').message).toBe(
      'must be a list, got a mapping',
    );
  });

  it('reports a missing patch path at the patch', () => {
    const error = only('sync:\n  toHost:\n    endpoints:\n      patches:\n        - expression: v\n');
    expect(error.code).toBe(ConfigErrorCode.MISSING_KEY);
    expect(error.path).toBe('sync.toHost.endpoints.patches[0].path');
    expect(error.line).toBe(5);
  });

  it('rejects a file that is not a mapping', () => {
    for (const text of ['hello', '- a\n- b\n', '42']) {
      const error = only(text);
      expect(error.path).toBe('');
      expect(error.message).toMatch(/^the file must be a mapping of keys/);
      expect(formatConfigError(error)).toMatch(/^config\/vcluster\.yaml:1:1 the file must be a mapping/);
    }
  });

  it('reports YAML syntax errors with line and column', () => {
    const duplicate = only('sync:\n  toHost: {}\nsync: {}\n');
    expect(duplicate).toMatchObject({ code: ConfigErrorCode.YAML_SYNTAX, line: 3, column: 1 });
    expect(duplicate.message).toBe('invalid YAML: Map keys must be unique');
    const indent = errorsOf('sync:\n  toHost:\n    endpoints:\n  enabled: [true\n');
    expect(indent[0]?.code).toBe(ConfigErrorCode.YAML_SYNTAX);
    expect(indent[0]?.line).toBeGreaterThanOrEqual(4);
    expect(only('a: *missing\n').message).toMatch(/^invalid YAML: .*alias/i);
  });

  it('checks namespace mappings only when namespace syncing is enabled', () => {
    const mappings = '      mappings:\n        byName:\n          "team-*": "host"\n          "a*b*": "c-*"\n          x: "${other}"\n';
    expect(parseConfig(`sync:\n  toHost:\n    namespaces:\n      enabled: false\n${mappings}`, FILE).ok).toBe(true);
    const errors = errorsOf(`sync:\n  toHost:\n    namespaces:\n      enabled: true\n${mappings}`);
    expect(errors.map((e) => [e.line, e.path])).toEqual([
      [7, 'sync.toHost.namespaces.mappings.byName["team-*"]'],
      [8, 'sync.toHost.namespaces.mappings.byName["a*b*"]'],
      [9, 'sync.toHost.namespaces.mappings.byName.x'],
    ]);
    expect(errors[0]?.message).toContain('mixes an exact name with a pattern');
    expect(errors[1]?.message).toContain('exactly one *');
    expect(errors[2]?.message).toContain('unknown placeholder');
  });

  it('enforces the namespace mapping rules', () => {
    const check = (virtual: string, host: string): string | undefined => {
      const result = parseConfig(
        `sync: { toHost: { namespaces: { enabled: true, mappings: { byName: { ${JSON.stringify(virtual)}: ${JSON.stringify(host)} } } } } }`,
        FILE,
      );
      return result.ok ? undefined : result.errors.map((e) => e.message).join('; ');
    };
    expect(check('team-*', 'h-team-*')).toBeUndefined();
    expect(check('datasets-*', '${name}-data-*')).toBeUndefined();
    expect(check('prod', '${name}-prod')).toBeUndefined();
    expect(check('*-team', 'h-*')).toContain('must end with its *');
    expect(check('*', 'h-*')).toContain('needs a prefix');
    expect(check(`${'p'.repeat(33)}-*`, 'h-*')).toContain('at most 32');
    expect(check('Team', 'host')).toContain('not a valid namespace name');
    expect(check('prod', '-host')).toContain('not a valid namespace name');
    expect(check('a', '${name}${name}')).toContain('more than once');
  });

  it('rejects two entries mapping to the same host namespace', () => {
    const errors = errorsOf('sync: { toHost: { namespaces: { enabled: true, mappings: { byName: { a: h, b: h } } } } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('sync.toHost.namespaces.mappings.byName.b');
    expect(errors[0]?.message).toContain('already the target of "a"');
  });
});

describe('configErrorAt and ConfigSource.locate', () => {
  const text = [
    'sync:', // 1
    '  toHost:', // 2
    '    endpoints:', // 3
    '      patches:', // 4
    '        - path: a', // 5
    '          expression: v', // 6
    '        - path: b', // 7
    '          expression: "bad("', // 8
    '',
  ].join('\n');
  const result = parseConfig(text, FILE);
  if (!result.ok) throw new Error('expected valid');
  const { source } = result;

  it('locates values and keys by path', () => {
    expect(source.locate(['sync', 'toHost', 'endpoints', 'patches', 1, 'expression'])).toEqual({ line: 8, column: 23 });
    expect(source.locateKey(['sync', 'toHost', 'endpoints', 'patches', 1, 'expression'])).toEqual({ line: 8, column: 11 });
    expect(source.locate(['sync', 'toHost', 'endpoints', 'patches', 1])).toEqual({ line: 7, column: 11 });
    expect(source.locate(['sync', 'toHost', 'endpoints', 'enabled'])).toBeUndefined();
    expect(source.locate(['sync', 'toHost', 'endpoints', 'patches', 5])).toBeUndefined();
    expect(source.locateNearest(['sync', 'toHost', 'endpoints', 'patches', 5, 'path'])).toEqual({ line: 5, column: 9 });
    expect(source.locate([])).toEqual({ line: 1, column: 1 });
  });

  it('builds located errors for other components (the patch engine)', () => {
    const error = configErrorAt(
      source,
      ['sync', 'toHost', 'endpoints', 'patches', 1, 'expression'],
      'PATCH_EXPRESSION_SYNTAX',
      'unexpected end of input',
    );
    expect(formatConfigError(error)).toBe(
      'config/vcluster.yaml:8:23 sync.toHost.endpoints.patches[1].expression: unexpected end of input',
    );
    const absent = configErrorAt(source, ['sync', 'toHost', 'endpoints', 'patches', 0, 'reference'], 'X', 'm');
    expect([absent.line, absent.column]).toEqual([5, 11]);
  });

  it('follows YAML aliases', () => {
    const aliased = parseConfig('base: &p { path: a, expression: v }\nsync: { toHost: { endpoints: { patches: [ *p ] } } }\n', FILE);
    if (!aliased.ok) throw new Error('expected valid');
    expect(aliased.config.sync.toHost.endpoints.patches).toEqual([{ path: 'a', expression: 'v' }]);
    expect(aliased.source.locate(['sync', 'toHost', 'endpoints', 'patches', 0, 'path'])).toEqual({ line: 1, column: 18 });
  });
});

describe('formatConfigError', () => {
  it('omits the position when there is none and the path when it is empty', () => {
    expect(
      formatConfigError({ code: 'C', path: '', file: 'f.yaml', line: 0, column: 0, message: 'cannot read' }),
    ).toBe('f.yaml cannot read');
  });
});
