import { describe, expect, it } from 'vitest';
import { ConfigErrorCode, formatConfigError, type ConfigError } from '../../../src/config/config-error.js';
import { configErrorAt, locatedConfigError, parseConfig } from '../../../src/config/parse-config.js';

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
privateNodes: { enabled: false, kubelet: { anything: [1, 2] } }
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

describe('parseConfig: keys along every path vcsync reads', () => {
  it('rejects a misspelt key on the way to vcsync\'s sections, with a "did you mean"', () => {
    const endpoint = only('sync:\n  toHost:\n    endpoint:\n      patches:\n        - path: a\n          expression: v\n');
    expect(endpoint).toMatchObject({ code: ConfigErrorCode.UNKNOWN_KEY, path: 'sync.toHost.endpoint', line: 3, column: 5 });
    expect(endpoint.message).toBe('unknown key; did you mean "endpoints"?');

    const toHots = only('sync:\n  toHots:\n    endpoints:\n      enabled: false\n');
    expect(toHots).toMatchObject({ code: ConfigErrorCode.UNKNOWN_KEY, path: 'sync.toHots', line: 2, column: 3 });
    expect(toHots.message).toBe('unknown key; did you mean "toHost"? allowed keys: toHost, fromHost');

    expect(only('Sync:\n  toHost: {}\n').message).toBe('unknown key; did you mean "sync"?');
    expect(only('sync: { fromHost: { node: { enabled: true } } }').message).toBe('unknown key; did you mean "nodes"?');
    expect(only('privateNodes: { enabeld: true }').message).toMatch(/^unknown key; did you mean "enabled"\?/);
  });

  it('names every allowed key when nothing is close', () => {
    const error = only('replicas: 3\n');
    expect(error).toMatchObject({ code: ConfigErrorCode.UNKNOWN_KEY, path: 'replicas', line: 1, column: 1 });
    expect(error.message).toMatch(/^unknown key; allowed keys: global, exportKubeConfig, sync, .*, platform$/);
  });

  it('rejects patches two spaces too far left and says where they belong', () => {
    const text = [
      'sync:', // 1
      '  toHost:', // 2
      '    endpoints:', // 3
      '      enabled: true', // 4
      '    patches:', // 5
      '      - path: metadata.annotations["a"]', // 6
      '        expression: \'"x"\'', // 7
      '',
    ].join('\n');
    const error = only(text);
    expect(error).toMatchObject({ code: ConfigErrorCode.MISPLACED_KEY, path: 'sync.toHost.patches', line: 5, column: 5 });
    expect(error.message).toBe('misplaced key: it belongs under sync.toHost.endpoints, not sync.toHost (indent it below "endpoints:")');
  });

  it('says where a key belongs one level down, one level up, or that several sections take it', () => {
    expect(only('toHost:\n  endpoints: {}\n').message).toBe(
      'misplaced key: it belongs under sync, not the top level (indent it below "sync:")',
    );
    expect(only('sync:\n  endpoints:\n    enabled: false\n').message).toBe(
      'misplaced key: it belongs under sync.toHost, not sync (indent it below "toHost:")',
    );
    const up = only('sync:\n  toHost:\n    endpoints:\n      enabled: true\n      namespaces:\n        enabled: true\n');
    expect(up).toMatchObject({ code: ConfigErrorCode.MISPLACED_KEY, path: 'sync.toHost.endpoints.namespaces', line: 5 });
    expect(up.message).toBe('misplaced key: it belongs one level up, under sync.toHost, not sync.toHost.endpoints (indent it less)');
    const either = only('sync:\n  toHost:\n    pods: {}\n    enabled: false\n');
    expect(either.message).toBe(
      'misplaced key: it is a key of sync.toHost.endpoints or sync.toHost.endpointSlices or sync.toHost.namespaces, not of sync.toHost (indent it below the section it belongs to)',
    );
  });

  it("accepts every key vcluster defines on the way, and any content in sections vcsync does not read", () => {
    const text = `
global: { annotations: { a: b } }
controlPlane: { ingress: { enabled: true, host: vc.example.com }, anything: [1] }
deploy: { metallb: { enabled: false } }
external: {}
sleepMode: { enabled: false }
sleep: {}
snapshots: {}
deletion: {}
platform: {}
logging: { encoding: json }
serviceCIDR: 10.96.0.0/12
pro: true
plugin: {}
privateNodes:
  enabled: false
  autoNodes: [{ anything: 1 }]
  vpn: { enabled: false }
sync:
  fromHost:
    nodes: { enabled: true, selector: { all: true }, notAVclusterKey: 1 }
    csiDrivers: { enabled: auto }
    deviceClasses: {}
  toHost:
    pods: { enabled: true, notAVclusterKey: { deep: [1] } }
    endpointSlices: { enabled: true }
    gatewayApi: {}
    customResources: { "a.example.com": { enabled: true } }
    resourceClaims:
    endpoints: { enabled: true }
`;
    const result = parseConfig(text, FILE);
    expect(result.ok, result.ok ? '' : result.errors.map(formatConfigError).join('\n')).toBe(true);
    expect(parseConfig('privateNodes:\nsync:\n  fromHost:\n', FILE).ok).toBe(true);
  });

  it('checks the type of privateNodes.enabled, the one key vcsync reads there', () => {
    const error = only('privateNodes:\n  enabled: "yes"\n');
    expect(error).toMatchObject({ code: ConfigErrorCode.INVALID_TYPE, path: 'privateNodes.enabled', line: 2, column: 12 });
  });
});

describe('parseConfig: Endpoints sync needs host nodes (seed §8)', () => {
  it('rejects private nodes with endpoints sync enabled, at sync.toHost.endpoints.enabled, saying why and what to do', () => {
    const text = ['privateNodes:', '  enabled: true', 'sync:', '  toHost:', '    endpoints:', '      enabled: true', ''].join('\n');
    expect(only(text)).toEqual({
      code: ConfigErrorCode.INCOMPATIBLE_SETTINGS,
      path: 'sync.toHost.endpoints.enabled',
      file: FILE,
      line: 6,
      column: 16,
      message:
        'Endpoints sync is only available with host nodes as the worker node type, and privateNodes.enabled is true; set sync.toHost.endpoints.enabled: false, or remove privateNodes',
    });
  });

  it('counts the default: private nodes without an endpoints section is an error at privateNodes.enabled', () => {
    const error = only('privateNodes:\n  enabled: true\n');
    expect(error).toMatchObject({ code: ConfigErrorCode.INCOMPATIBLE_SETTINGS, path: 'privateNodes.enabled', line: 2, column: 12 });
    expect(error.message).toBe(
      'Endpoints sync is only available with host nodes as the worker node type, and sync.toHost.endpoints.enabled is true by default; set sync.toHost.endpoints.enabled: false, or remove privateNodes',
    );
  });

  it('accepts private nodes with endpoints sync off, and host nodes with it on', () => {
    expect(parseConfig('privateNodes: { enabled: true }\nsync: { toHost: { endpoints: { enabled: false } } }\n', FILE).ok).toBe(true);
    expect(parseConfig('privateNodes: { enabled: false }\nsync: { toHost: { endpoints: { enabled: true } } }\n', FILE).ok).toBe(true);
  });

  it('leaves a value of the wrong type to the schema (one error, not two)', () => {
    expect(only('privateNodes: { enabled: true }\nsync: { toHost: { endpoints: { enabled: "yes" } } }\n').code).toBe(
      ConfigErrorCode.INVALID_TYPE,
    );
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
    const aliased = parseConfig('experimental: &p { path: a, expression: v }\nsync: { toHost: { endpoints: { patches: [ *p ] } } }\n', FILE);
    if (!aliased.ok) throw new Error('expected valid');
    expect(aliased.config.sync.toHost.endpoints.patches).toEqual([{ path: 'a', expression: 'v' }]);
    expect(aliased.source.locate(['sync', 'toHost', 'endpoints', 'patches', 0, 'path'])).toEqual({ line: 1, column: 26 });
  });
});

describe('ConfigSource.locateInside: a position inside a string value, as a position in the file', () => {
  /** Where in the file the character at `inner` of the first patch's expression is. */
  const inside = (lines: string[], inner: { line: number; column: number }) => {
    const result = parseConfig(['sync:', '  toHost:', '    endpoints:', '      patches:', '        - path: a', ...lines, ''].join('\n'), FILE);
    if (!result.ok) throw new Error(result.errors.map(formatConfigError).join('\n'));
    return result.source.locateInside(['sync', 'toHost', 'endpoints', 'patches', 0, 'expression'], inner);
  };

  it.each([
    // [what, lines from line 6 on, position inside the value, expected line, expected column]
    ['plain', ['          expression: value; value'], { line: 1, column: 6 }, 6, 28],
    ['single-quoted with a doubled quote', ["          expression: 'it''s; x'"], { line: 1, column: 5 }, 6, 29],
    ['double-quoted with an escape', ['          expression: "a\\tb;"'], { line: 1, column: 4 }, 6, 28],
    ['double-quoted with a \\u escape', ['          expression: "\\u00e9 + ;"'], { line: 1, column: 5 }, 6, 33],
    ['literal block, second line', ['          expression: |', '            value +', '              )'], { line: 2, column: 3 }, 8, 15],
    ['folded plain, second source line', ['          expression: value +', '            )'], { line: 1, column: 9 }, 7, 13],
    ['folded block, second source line', ['          expression: >-', '            value +', '            )'], { line: 1, column: 9 }, 8, 13],
    ['end of input: just after the last character', ['          expression: "value +"'], { line: 1, column: 8 }, 6, 31],
  ])('%s', (_what, lines, inner, line, column) => {
    expect(inside(lines, inner)).toEqual({ line, column });
  });

  it('is undefined where it cannot map exactly: not a string, or an explicit block indentation', () => {
    const result = parseConfig('sync: { toHost: { endpoints: { enabled: true } } }', FILE);
    if (!result.ok) throw new Error('expected valid');
    expect(result.source.locateInside(['sync', 'toHost', 'endpoints', 'enabled'], { line: 1, column: 1 })).toBeUndefined();
    expect(result.source.locateInside(['sync', 'toHost'], { line: 1, column: 1 })).toBeUndefined();
    expect(inside(['          expression: |2', '              value'], { line: 1, column: 1 })).toBeUndefined();
  });

  it('falls back to the value with the position inside in words, never two positions', () => {
    const result = parseConfig('sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: a\n          expression: |2\n              value;\n', FILE);
    if (!result.ok) throw new Error('expected valid');
    const error = locatedConfigError(result.source, {
      path: ['sync', 'toHost', 'endpoints', 'patches', 0, 'expression'],
      code: 'X',
      message: 'Unexpected ";"',
      inside: { line: 1, column: 6 },
    });
    expect(formatConfigError(error)).toBe(
      'config/vcluster.yaml:6:23 sync.toHost.endpoints.patches[0].expression: Unexpected ";" (column 6 inside the value)',
    );
  });
});

describe('formatConfigError', () => {
  it('omits the position when there is none and the path when it is empty', () => {
    expect(
      formatConfigError({ code: 'C', path: '', file: 'f.yaml', line: 0, column: 0, message: 'cannot read' }),
    ).toBe('f.yaml cannot read');
  });
});
