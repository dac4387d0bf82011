import { describe, expect, it } from 'vitest';
import { hostLabelKey, isRewrittenLabelKey, virtualLabelKey } from '../../../src/translate/label-keys.js';
import {
  formatKeyList,
  formatObjectKind,
  hostMetadata,
  hostOnlyMetadata,
  parseKeyList,
  virtualLabelsAndAnnotations,
  withHostOnlyMetadata,
} from '../../../src/translate/object-metadata.js';
import {
  ANNOTATION_MANAGED_ANNOTATIONS,
  ANNOTATION_MANAGED_LABELS,
  LABEL_CONTROLLED_BY,
  LABEL_MANAGED_BY,
  LABEL_NAMESPACE,
  LABEL_RELEASE,
} from '../../../src/translate/keys.js';
import { hostLabelSelector, hostSelectorMap } from '../../../src/translate/label-selector.js';
import { deepFrozen } from './deep-frozen.js';

const KIND = '/v1, Kind=Endpoints';
const HOST_REF = { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1' };

describe('label keys', () => {
  it('rewrites release with vcluster "suffix" to the reference key', () => {
    expect(hostLabelKey('release', 'suffix')).toBe('vcluster.loft.sh/label-suffix-x-a4d451ec23');
  });

  it('rewrites exactly the four colliding keys and restores them', () => {
    for (const key of [LABEL_RELEASE, LABEL_NAMESPACE, LABEL_MANAGED_BY, LABEL_CONTROLLED_BY]) {
      const host = hostLabelKey(key, 'vc1');
      expect(host).toMatch(/^vcluster\.loft\.sh\/label-vc1-x-[0-9a-f]{10}$/);
      expect(virtualLabelKey(host, 'vc1')).toBe(key);
    }
    expect(hostLabelKey('app', 'vc1')).toBe('app');
    expect(hostLabelKey('app.kubernetes.io/name', 'vc1')).toBe('app.kubernetes.io/name');
    expect(virtualLabelKey('app', 'vc1')).toBe('app');
  });

  it('does not restore a key rewritten for another vcluster', () => {
    const foreign = hostLabelKey('release', 'other');
    expect(virtualLabelKey(foreign, 'vc1')).toBe(foreign);
  });

  it('stays within 63 characters for a long vcluster name', () => {
    expect(hostLabelKey('release', 'v'.repeat(60)).length).toBeLessThanOrEqual(63);
  });
});

describe('formatObjectKind', () => {
  it('writes Go-style group-version-kind', () => {
    expect(formatObjectKind('v1', 'Endpoints')).toBe(KIND);
    expect(formatObjectKind('apps/v1', 'Deployment')).toBe('apps/v1, Kind=Deployment');
  });
});

describe('hostMetadata', () => {
  const virtual = deepFrozen({
    name: 'web',
    namespace: 'default',
    uid: 'uid-1',
    labels: { app: 'web', release: 'r1', empty: '' },
    annotations: { note: 'hello', 'control-plane.alpha.kubernetes.io/leader': '{}' },
  });

  it('copies labels (rewriting colliding keys, keeping empty values) and adds managed-by and namespace', () => {
    const result = hostMetadata({ virtual, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    expect(result.name).toBe(HOST_REF.name);
    expect(result.namespace).toBe(HOST_REF.namespace);
    expect(result.labels).toEqual({
      app: 'web',
      empty: '',
      [hostLabelKey('release', 'vc1')]: 'r1',
      [LABEL_MANAGED_BY]: 'vc1',
      [LABEL_NAMESPACE]: 'default',
    });
  });

  it('adds every bookkeeping annotation and skips excluded ones', () => {
    const result = hostMetadata({
      virtual,
      hostRef: HOST_REF,
      vclusterName: 'vc1',
      kind: KIND,
      excludedAnnotations: ['control-plane.alpha.kubernetes.io/leader'],
    });
    expect(result.annotations).toEqual({
      note: 'hello',
      'vcluster.loft.sh/object-name': 'web',
      'vcluster.loft.sh/object-namespace': 'default',
      'vcluster.loft.sh/object-uid': 'uid-1',
      'vcluster.loft.sh/object-kind': KIND,
      'vcluster.loft.sh/object-host-name': HOST_REF.name,
      'vcluster.loft.sh/object-host-namespace': HOST_REF.namespace,
      [ANNOTATION_MANAGED_ANNOTATIONS]: 'note',
      [ANNOTATION_MANAGED_LABELS]: 'app\nempty\nrelease',
    });
  });

  it('never copies a virtual annotation that spoofs a bookkeeping key', () => {
    const spoof = deepFrozen({
      name: 'web',
      namespace: 'default',
      annotations: { 'vcluster.loft.sh/object-name': 'evil', [ANNOTATION_MANAGED_LABELS]: 'x' },
    });
    const result = hostMetadata({ virtual: spoof, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    expect(result.annotations['vcluster.loft.sh/object-name']).toBe('web');
    expect(result.annotations[ANNOTATION_MANAGED_LABELS]).toBeUndefined();
    expect(result.annotations[ANNOTATION_MANAGED_ANNOTATIONS]).toBeUndefined();
  });

  it('removes on the host a key removed in the virtual object, keeping host-only keys', () => {
    const first = hostMetadata({ virtual, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    const existingHost = deepFrozen({
      ...first,
      labels: { ...first.labels, 'host-only': 'keep' },
      annotations: { ...first.annotations, 'host.example/owner': 'ops' },
    });
    const changed = deepFrozen({ ...virtual, labels: { app: 'web2' }, annotations: {} });
    const result = hostMetadata({ virtual: changed, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND, existingHost });
    expect(result.labels).toEqual({
      app: 'web2',
      'host-only': 'keep',
      [LABEL_MANAGED_BY]: 'vc1',
      [LABEL_NAMESPACE]: 'default',
    });
    expect(result.annotations['host.example/owner']).toBe('ops');
    expect(result.annotations['note']).toBeUndefined();
    expect(result.annotations[ANNOTATION_MANAGED_ANNOTATIONS]).toBeUndefined();
    expect(result.annotations[ANNOTATION_MANAGED_LABELS]).toBe('app');
  });

  it('lets a virtual key take over a host-only key, and then removes it with the virtual key', () => {
    const existingHost = deepFrozen({ labels: { tier: 'host' }, annotations: {} });
    const withTier = deepFrozen({ name: 'web', namespace: 'default', labels: { tier: 'virtual' } });
    const taken = hostMetadata({ virtual: withTier, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND, existingHost });
    expect(taken.labels['tier']).toBe('virtual');
    const dropped = hostMetadata({
      virtual: deepFrozen({ name: 'web', namespace: 'default' }),
      hostRef: HOST_REF,
      vclusterName: 'vc1',
      kind: KIND,
      existingHost: deepFrozen(taken),
    });
    expect(dropped.labels['tier']).toBeUndefined();
  });

  it('round-trips labels and annotations virtual → host → virtual', () => {
    const host = hostMetadata({ virtual, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    const back = virtualLabelsAndAnnotations(deepFrozen(host), 'vc1');
    expect(back.labels).toEqual(virtual.labels);
    expect(back.annotations).toEqual(virtual.annotations);
  });

  it('round-trips a virtual object that itself carries the colliding vcluster labels', () => {
    const tricky = deepFrozen({
      name: 'web',
      namespace: 'default',
      labels: { [LABEL_NAMESPACE]: 'fake-ns', [LABEL_MANAGED_BY]: 'fake-vc', [LABEL_CONTROLLED_BY]: 'x' },
    });
    const host = hostMetadata({ virtual: tricky, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    expect(host.labels[LABEL_NAMESPACE]).toBe('default');
    expect(host.labels[LABEL_MANAGED_BY]).toBe('vc1');
    expect(virtualLabelsAndAnnotations(deepFrozen(host), 'vc1').labels).toEqual(tricky.labels);
  });
});

describe('labels whose key is already a rewritten key (vcluster drops them)', () => {
  const rewrittenRelease = hostLabelKey('release', 'vc1');
  // virtual labels → host labels (besides managed-by and namespace) and the managed-labels list
  const table: { name: string; virtual: Record<string, string>; host: Record<string, string>; managed: string }[] = [
    {
      name: 'a rewritten release key next to release: release keeps its value',
      virtual: { release: 'mine', [rewrittenRelease]: 'spoofed' },
      host: { [rewrittenRelease]: 'mine' },
      managed: 'release',
    },
    {
      name: 'a rewritten release key alone: dropped',
      virtual: { app: 'web', [rewrittenRelease]: 'spoofed' },
      host: { app: 'web' },
      managed: 'app',
    },
    {
      name: 'a rewritten controlled-by key: dropped',
      virtual: { [hostLabelKey(LABEL_CONTROLLED_BY, 'vc1')]: 'x' },
      host: {},
      managed: '',
    },
    {
      name: 'a key rewritten for another vcluster: an ordinary label',
      virtual: { [hostLabelKey('release', 'other')]: 'theirs' },
      host: { [hostLabelKey('release', 'other')]: 'theirs' },
      managed: hostLabelKey('release', 'other'),
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const result = hostMetadata({
        virtual: deepFrozen({ name: 'web', namespace: 'default', labels: row.virtual }),
        hostRef: HOST_REF,
        vclusterName: 'vc1',
        kind: KIND,
      });
      expect(result.labels).toEqual({ ...row.host, [LABEL_MANAGED_BY]: 'vc1', [LABEL_NAMESPACE]: 'default' });
      expect(result.annotations[ANNOTATION_MANAGED_LABELS]).toBe(row.managed === '' ? undefined : row.managed);
    });
  }

  it('recognises exactly the four rewritten keys of this vcluster', () => {
    for (const key of [LABEL_RELEASE, LABEL_NAMESPACE, LABEL_MANAGED_BY, LABEL_CONTROLLED_BY]) {
      expect(isRewrittenLabelKey(hostLabelKey(key, 'vc1'), 'vc1')).toBe(true);
      expect(isRewrittenLabelKey(key, 'vc1')).toBe(false);
    }
    expect(isRewrittenLabelKey(hostLabelKey('release', 'other'), 'vc1')).toBe(false);
  });

  it('reads a host label with a colliding key as it is (a host controller\'s release) as nothing for the virtual object', () => {
    const back = virtualLabelsAndAnnotations(
      deepFrozen({ labels: { [rewrittenRelease]: 'mine', release: 'host-helm', [LABEL_CONTROLLED_BY]: 'p', app: 'web' } }),
      'vc1',
    );
    expect(back.labels).toEqual({ release: 'mine', app: 'web' });
  });
});

describe('hostOnlyMetadata and withHostOnlyMetadata', () => {
  it('finds the keys vcsync neither writes now nor wrote at the last sync, and adds them under patched metadata', () => {
    const virtual = deepFrozen({ name: 'web', namespace: 'default', labels: { app: 'web', old: 'x' }, annotations: { team: 'a' } });
    const synced = hostMetadata({ virtual, hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    const existingHost = deepFrozen({ ...synced, labels: { ...synced.labels, 'host-only': 'keep' }, annotations: { ...synced.annotations, team: 'a-patched', owner: 'ops' } });
    const now = hostMetadata({ virtual: deepFrozen({ ...virtual, labels: { app: 'web' } }), hostRef: HOST_REF, vclusterName: 'vc1', kind: KIND });
    const hostOnly = hostOnlyMetadata({ existingHost, translated: deepFrozen(now), vclusterName: 'vc1' });
    expect(hostOnly).toEqual({ labels: { 'host-only': 'keep' }, annotations: { owner: 'ops' } });

    const patched = deepFrozen({ name: 'n', labels: { app: 'WEB' }, annotations: 'not a map' });
    expect(withHostOnlyMetadata(patched, hostOnly)).toEqual({ name: 'n', labels: { 'host-only': 'keep', app: 'WEB' }, annotations: 'not a map' });
    const bare: { name: string; labels?: Record<string, string> } = deepFrozen({ name: 'n' });
    expect(withHostOnlyMetadata(bare, hostOnly)).toEqual({ name: 'n', labels: { 'host-only': 'keep' }, annotations: { owner: 'ops' } });
    expect(withHostOnlyMetadata(bare, { labels: {}, annotations: {} })).toEqual({ name: 'n' });
  });
});

describe('key lists', () => {
  it('sorts, deduplicates and round-trips', () => {
    expect(formatKeyList(['b', 'a', 'b'])).toBe('a\nb');
    expect(parseKeyList('a\nb')).toEqual(['a', 'b']);
    expect(parseKeyList('')).toEqual([]);
    expect(parseKeyList(undefined)).toEqual([]);
  });
});

describe('label selectors', () => {
  it('rewrites matchLabels and matchExpressions keys, leaving values and operators', () => {
    const selector = deepFrozen({
      matchLabels: { release: 'r1', app: 'web' },
      matchExpressions: [{ key: 'release', operator: 'In', values: ['a', 'b'] }, { key: 'tier', operator: 'Exists' }],
    });
    expect(hostLabelSelector(selector, 'vc1')).toEqual({
      matchLabels: { [hostLabelKey('release', 'vc1')]: 'r1', app: 'web' },
      matchExpressions: [
        { key: hostLabelKey('release', 'vc1'), operator: 'In', values: ['a', 'b'] },
        { key: 'tier', operator: 'Exists' },
      ],
    });
  });

  it('adds the namespace scope when asked, also to a selector without matchLabels', () => {
    const scoped = hostLabelSelector(deepFrozen({ matchExpressions: [] }), 'vc1', {
      vclusterName: 'vc1',
      virtualNamespace: 'team',
    });
    expect(scoped).toEqual({
      matchLabels: { [LABEL_MANAGED_BY]: 'vc1', [LABEL_NAMESPACE]: 'team' },
      matchExpressions: [],
    });
    expect(hostLabelSelector(deepFrozen({}), 'vc1')).toEqual({});
  });

  it('translates plain selector maps', () => {
    expect(hostSelectorMap(deepFrozen({ release: 'r', app: 'a' }), 'vc1')).toEqual({
      [hostLabelKey('release', 'vc1')]: 'r',
      app: 'a',
    });
  });
});
