/** Fixtures shared by the patch engine tests (the same matching table runs on the host and in the sandbox). */

/** An Endpoints-like object the matching table runs against. */
export const endpointsForMatching = {
  metadata: { name: 'web', annotations: { 'a.b/c': 'dots', plain: 'p' } },
  subsets: [
    { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] },
    { addresses: [{ ip: '10.0.0.3', hostname: 'h' }] },
    { notReadyAddresses: [] },
  ],
  zones: { east: { weight: 2 }, west: {} },
};

/**
 * Shared with the sandbox runtime test: path → concrete locations matched in `endpoints`. A path
 * matches only where every segment exists, the last one included (a path that is not in
 * the object is not applied), so the rows with a missing segment match nothing or fewer places.
 */
export const MATCH_TABLE: [string, string[]][] = [
  ['subsets[*].addresses[*].ip', ['subsets[0].addresses[0].ip', 'subsets[0].addresses[1].ip', 'subsets[1].addresses[0].ip']],
  ['subsets[1].addresses[0].hostname', ['subsets[1].addresses[0].hostname']],
  ['subsets[*].ports[*].port', ['subsets[0].ports[0].port']],
  ['metadata.annotations[*]', ['metadata.annotations["a.b/c"]', 'metadata.annotations.plain']],
  ['metadata.annotations["a.b/c"]', ['metadata.annotations["a.b/c"]']],
  ['subsets[5].addresses', []],
  ['spec.selector', []],
  ['metadata.name[*]', []],
  ['subsets.addresses', []],
  ['subsets[*].notReadyAddresses[*]', []],
  // The last segment missing: under an existing map, a bracketed key, behind [*] over arrays and maps.
  ['metadata.labels', []],
  ['metadata.annotations.missing', []],
  ['metadata.annotations["x.y/z"]', []],
  ['subsets[*].addresses[*].hostname', ['subsets[1].addresses[0].hostname']],
  ['subsets[*].ports', ['subsets[0].ports']],
  ['zones[*].weight', ['zones.east.weight']],
  ['zones[*]["weight"]', ['zones.east.weight']],
  ['zones[*].weight[*]', []],
];

/** Freezes a value and everything inside it, so a test proves the code under test mutates nothing. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** A reference translator in the style of single-namespace mode: `v` + the name reversed, one host namespace. */
export const fakeReferences = {
  toHost: (reference: { name: string; namespace: string }): { name: string; namespace: string } => ({
    name: `v${reference.namespace}-${reference.name}`,
    namespace: 'host-ns',
  }),
  toVirtual: (reference: { name: string; namespace: string }): { name: string; namespace: string } | undefined => {
    const match = /^v([^-]+)-(.+)$/.exec(reference.name);
    return match === null || match[1] === undefined || match[2] === undefined
      ? undefined
      : { name: match[2], namespace: match[1] };
  },
};

/** A label translator that rewrites `release` like the syncer does and keeps other keys. */
export const fakeLabels = {
  toHostKey: (key: string): string => (key === 'release' ? 'vcluster.loft.sh/label-vc-x-release' : key),
  toVirtualKey: (key: string): string => (key === 'vcluster.loft.sh/label-vc-x-release' ? 'release' : key),
};
