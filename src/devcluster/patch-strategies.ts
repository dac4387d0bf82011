/**
 * The strategic-merge-patch metadata of the served kinds: which lists merge (and by which key)
 * instead of being replaced. These are the `patchStrategy`/`patchMergeKey` tags of the Kubernetes
 * API types; kubectl computes its patches from the same tags, so both sides must agree.
 */

/** How a list field is patched. Lists not described here are replaced as a whole (atomic). */
export interface ListPatchStrategy {
  /** Key that identifies elements of a list of objects; absent for lists of primitives (set merge). */
  readonly mergeKey?: string;
}

type StrategyTable = Readonly<Record<string, ListPatchStrategy>>;

const OBJECT_META: StrategyTable = {
  'metadata.finalizers': {},
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

function containerFields(prefix: string): StrategyTable {
  return {
    [prefix]: { mergeKey: 'name' },
    [`${prefix}.ports`]: { mergeKey: 'containerPort' },
    [`${prefix}.env`]: { mergeKey: 'name' },
    [`${prefix}.volumeMounts`]: { mergeKey: 'mountPath' },
    [`${prefix}.volumeDevices`]: { mergeKey: 'devicePath' },
  };
}

function podSpecFields(prefix: string): StrategyTable {
  return {
    ...containerFields(`${prefix}.containers`),
    ...containerFields(`${prefix}.initContainers`),
    ...containerFields(`${prefix}.ephemeralContainers`),
    [`${prefix}.volumes`]: { mergeKey: 'name' },
    [`${prefix}.imagePullSecrets`]: { mergeKey: 'name' },
    [`${prefix}.hostAliases`]: { mergeKey: 'ip' },
    [`${prefix}.topologySpreadConstraints`]: { mergeKey: 'topologyKey' },
    [`${prefix}.schedulingGates`]: { mergeKey: 'name' },
    [`${prefix}.resourceClaims`]: { mergeKey: 'name' },
  };
}

const BY_KIND: Readonly<Record<string, StrategyTable>> = {
  Pod: {
    ...podSpecFields('spec'),
    'status.conditions': { mergeKey: 'type' },
    'status.podIPs': { mergeKey: 'ip' },
    'status.hostIPs': { mergeKey: 'ip' },
  },
  Service: { 'spec.ports': { mergeKey: 'port' }, 'status.conditions': { mergeKey: 'type' } },
  Namespace: { 'status.conditions': { mergeKey: 'type' } },
  ServiceAccount: { secrets: { mergeKey: 'name' }, imagePullSecrets: { mergeKey: 'name' } },
};

/**
 * The patch strategy of the list at `path` (field names joined by `.`, list indices left out) in
 * an object of `kind`; undefined when the list is atomic.
 */
export function listStrategy(kind: string, path: string): ListPatchStrategy | undefined {
  return OBJECT_META[path] ?? BY_KIND[kind]?.[path];
}
