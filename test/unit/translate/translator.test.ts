import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse-config.js';
import type { VclusterConfig } from '../../../src/config/schema.js';
import { shortHostName } from '../../../src/translate/host-names.js';
import { LABEL_MANAGED_BY, LABEL_NAMESPACE } from '../../../src/translate/keys.js';
import { hostLabelKey } from '../../../src/translate/label-keys.js';
import { TranslateError } from '../../../src/translate/translate-error.js';
import { createTranslator, type Translator } from '../../../src/translate/translator.js';
import type { ObjectMetadata } from '../../../src/translate/object-metadata.js';
import { deepFrozen } from './deep-frozen.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const KIND = '/v1, Kind=Endpoints';

function config(yaml: string): VclusterConfig {
  const result = parseConfig(yaml, 'test.yaml', registryConfigSchema());
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.config;
}

const single = createTranslator({ vclusterName: 'vc1', hostNamespace: 'vcluster-vc1', config: config('') });

const MULTI_YAML = `
sync:
  toHost:
    namespaces:
      enabled: true
      mappings:
        byName:
          frontend: customer-frontend
          "team-*": "\${name}-team-*"
`;
const multi = createTranslator({ vclusterName: 'vc1', hostNamespace: 'vcluster-vc1', config: config(MULTI_YAML) });
const strict = createTranslator({
  vclusterName: 'vc1',
  hostNamespace: 'vcluster-vc1',
  config: config(MULTI_YAML.replace('enabled: true', 'enabled: true\n      mappingsOnly: true')),
});

const virtualEndpoints = deepFrozen({
  name: 'web',
  namespace: 'default',
  uid: 'u-1',
  labels: { app: 'web', release: 'r' },
  annotations: { note: 'n' },
});

function written(translator: Translator, virtual: ObjectMetadata = virtualEndpoints) {
  const result = translator.hostMetadata({ virtual, kind: KIND });
  if (!result.synced) throw new Error(result.reason);
  return deepFrozen(result.metadata);
}

describe('single-namespace translator', () => {
  it('puts everything in the host namespace with hashed names', () => {
    expect(single.mode).toBe('single-namespace');
    expect(single.hostRef({ name: 'web', namespace: 'default' })).toEqual({
      synced: true,
      ref: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1' },
      placement: 'shared',
    });
    expect(single.hostNamespaceFor('anything')).toEqual({ synced: true, namespace: 'vcluster-vc1', placement: 'shared' });
  });

  it('rewrites references to the short v-form in the host namespace', () => {
    expect(single.referenceRef({ name: 'db', namespace: 'default' })).toEqual({
      synced: true,
      ref: { name: shortHostName('db', 'default', 'vc1'), namespace: 'vcluster-vc1' },
      placement: 'shared',
    });
  });

  it('scopes selectors to the virtual namespace', () => {
    expect(single.hostSelectorMap(deepFrozen({ app: 'web', release: 'r' }), 'team')).toEqual({
      app: 'web',
      [hostLabelKey('release', 'vc1')]: 'r',
      [LABEL_MANAGED_BY]: 'vc1',
      [LABEL_NAMESPACE]: 'team',
    });
    expect(single.hostLabelSelector(deepFrozen({ matchLabels: { app: 'web' } }), 'team').matchLabels).toEqual({
      app: 'web',
      [LABEL_MANAGED_BY]: 'vc1',
      [LABEL_NAMESPACE]: 'team',
    });
  });

  it('writes full host metadata and reads it back to the virtual object', () => {
    const host = written(single);
    expect(host.name).toBe('web-x-default-x-vc1');
    expect(host.namespace).toBe('vcluster-vc1');
    expect(host.annotations['vcluster.loft.sh/object-kind']).toBe(KIND);
    expect(single.isManaged(host)).toBe(true);
    expect(single.virtualRef(host)).toEqual({ name: 'web', namespace: 'default' });
    expect(single.virtualMetadata(host)).toEqual({
      name: 'web',
      namespace: 'default',
      labels: virtualEndpoints.labels,
      annotations: virtualEndpoints.annotations,
    });
  });

  it('round-trips names with long and dotted parts', () => {
    const virtual = deepFrozen({ name: `api.v1.${'n'.repeat(50)}`, namespace: 'team-alpha' });
    const host = written(single, virtual);
    expect(host.name.length).toBeLessThanOrEqual(63);
    expect(single.virtualRef(host)).toEqual({ name: virtual.name, namespace: virtual.namespace });
  });

  it('does not sync an object without a name or namespace', () => {
    expect(single.hostMetadata({ virtual: deepFrozen({ name: 'x' }), kind: KIND }).synced).toBe(false);
  });

  describe('is ours', () => {
    const host = written(single);
    const cases: [string, object][] = [
      ['in another namespace', { ...host, namespace: 'elsewhere' }],
      ['managed by another vcluster', { ...host, labels: { ...host.labels, [LABEL_MANAGED_BY]: 'vc2' } }],
      ['without the managed-by label', { ...host, labels: { app: 'web' } }],
      [
        'with a tampered object-name',
        { ...host, annotations: { ...host.annotations, 'vcluster.loft.sh/object-name': 'other' } },
      ],
      [
        'with a tampered object-namespace',
        { ...host, annotations: { ...host.annotations, 'vcluster.loft.sh/object-namespace': 'kube-system' } },
      ],
      ['without annotations', { ...host, annotations: undefined }],
      ['renamed on the host', { ...host, name: 'web-x-default-x-vc1-copy' }],
    ];
    it.each(cases)('rejects a host object %s', (_label, candidate) => {
      const frozen = deepFrozen(candidate);
      expect(single.isManaged(frozen)).toBe(false);
      expect(single.virtualRef(frozen)).toBeUndefined();
      expect(single.virtualMetadata(frozen)).toBeUndefined();
    });

    it('rejects another vcluster’s object in the same host namespace', () => {
      const other = createTranslator({ vclusterName: 'vc2', hostNamespace: 'vcluster-vc1', config: config('') });
      expect(other.isManaged(host)).toBe(false);
    });
  });
});

describe('multi-namespace translator', () => {
  it('keeps names and maps namespaces (exact and pattern with ${name})', () => {
    expect(multi.mode).toBe('multi-namespace');
    expect(multi.hostRef({ name: 'web', namespace: 'frontend' })).toEqual({
      synced: true,
      ref: { name: 'web', namespace: 'customer-frontend' },
      placement: 'mapped',
    });
    expect(multi.hostRef({ name: 'web', namespace: 'team-blue' })).toEqual({
      synced: true,
      ref: { name: 'web', namespace: 'vc1-team-blue' },
      placement: 'mapped',
    });
  });

  it('falls back to the shared namespace for unmapped namespaces unless mappingsOnly', () => {
    expect(multi.hostRef({ name: 'web', namespace: 'default' })).toEqual({
      synced: true,
      ref: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1' },
      placement: 'shared',
    });
    const result = strict.hostRef({ name: 'web', namespace: 'default' });
    expect(result.synced).toBe(false);
    expect(!result.synced && result.reason).toMatch(/matches no entry.*mappingsOnly/);
    expect(strict.hostMetadata({ virtual: virtualEndpoints, kind: KIND }).synced).toBe(false);
    expect(strict.referenceRef({ name: 'db', namespace: 'default' }).synced).toBe(false);
  });

  it('leaves reference names unchanged in mapped namespaces', () => {
    expect(multi.referenceRef({ name: 'db', namespace: 'team-x' })).toEqual({
      synced: true,
      ref: { name: 'db', namespace: 'vc1-team-x' },
      placement: 'mapped',
    });
  });

  it('does not scope selectors in mapped namespaces', () => {
    expect(multi.hostSelectorMap(deepFrozen({ app: 'web' }), 'frontend')).toEqual({ app: 'web' });
  });

  it('round-trips metadata and recognises its objects', () => {
    const virtual = deepFrozen({ ...virtualEndpoints, namespace: 'team-blue' });
    const host = written(multi, virtual);
    expect(host.name).toBe('web');
    expect(host.namespace).toBe('vc1-team-blue');
    expect(host.annotations['vcluster.loft.sh/object-host-namespace']).toBe('vc1-team-blue');
    expect(multi.isManaged(host)).toBe(true);
    expect(multi.virtualMetadata(host)).toMatchObject({ name: 'web', namespace: 'team-blue', labels: virtual.labels });
    expect(multi.isManaged(deepFrozen({ ...host, namespace: 'vc1-team-red' }))).toBe(false);
    expect(single.isManaged(host)).toBe(false);
  });

  it('refuses mappings that break a rule once the vcluster name is known', () => {
    const yaml = MULTI_YAML.replace('"team-*": "${name}-team-*"', '"team-*": "${name}-*"');
    expect(() =>
      createTranslator({ vclusterName: 'x'.repeat(40), hostNamespace: 'ns', config: config(yaml) }),
    ).toThrow(TranslateError);
  });
});

describe('createTranslator', () => {
  it('requires a vcluster name and a host namespace', () => {
    expect(() => createTranslator({ vclusterName: '', hostNamespace: 'ns', config: config('') })).toThrow(
      TranslateError,
    );
    expect(() => createTranslator({ vclusterName: 'vc', hostNamespace: '', config: config('') })).toThrow(
      /non-empty/,
    );
  });
});
