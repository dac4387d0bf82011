/**
 * The strategic-merge-patch metadata of the core kinds: which of their lists merge (and by which
 * key) instead of being replaced, the `patchStrategy`/`patchMergeKey` tags of k8s.io/api/core/v1 (and apps/v1),
 * plus what server-side apply needs beyond them (list-map keys that differ from the merge key,
 * maps owned as a whole). ObjectMeta's lists are the core's (`apiserver/strategic-merge-patch.ts`).
 */
import type { PatchStrategyTable as StrategyTable } from '../apiserver/index.js';

function containerFields(prefix: string): StrategyTable {
  return {
    [prefix]: { mergeKey: 'name' },
    [`${prefix}.ports`]: { mergeKey: 'containerPort', listMapKeys: ['containerPort', 'protocol'], keyDefaults: { protocol: 'TCP' } },
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
    [`${prefix}.nodeSelector`]: { atomic: true },
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
  Service: {
    'spec.ports': { mergeKey: 'port', listMapKeys: ['port', 'protocol'], keyDefaults: { protocol: 'TCP' } },
    'spec.selector': { atomic: true },
    'status.conditions': { mergeKey: 'type' },
  },
  Namespace: { 'status.conditions': { mergeKey: 'type' } },
  ServiceAccount: { secrets: { mergeKey: 'name' }, imagePullSecrets: { mergeKey: 'name' } },
  StatefulSet: { ...podSpecFields('spec.template.spec'), 'status.conditions': { mergeKey: 'type' } },
};

/** The merging lists of `kind`; none for kinds not listed (every list is atomic). */
export function mergeStrategiesOf(kind: string): StrategyTable {
  return BY_KIND[kind] ?? {};
}
