/**
 * The keys of vcluster.yaml along every path vcsync reads, as vcluster's own schema
 * (`chart/values.schema.json`, releases 0.20 to 0.36) defines them: the union over those
 * releases, so a file written for any of them is accepted (`sync` itself takes `toHost` and
 * `fromHost`, in `schema.ts`). vcluster closes each of these mappings too, so a key missing here
 * is a key vcluster itself would reject. The sections behind the keys vcsync does not read
 * (`controlPlane`, `sync.toHost.pods`, …) are vcluster's to check, not vcsync's: the schema
 * accepts any content there.
 */

/** Top-level keys. vcsync reads `sync` and `privateNodes`. */
export const TOP_LEVEL_KEYS = [
  'global',
  'exportKubeConfig',
  'sync',
  'integrations',
  'deploy',
  'networking',
  'policies',
  'controlPlane',
  'privateNodes',
  'rbac',
  'plugins',
  'experimental',
  'external',
  'telemetry',
  'serviceCIDR',
  'pro',
  'plugin',
  'sleepMode',
  'logging',
  'sleep',
  'snapshots',
  'deletion',
  'platform',
] as const;

/** Resource keys of `sync.toHost`. vcsync reads `endpoints` and `namespaces`. */
export const SYNC_TO_HOST_KEYS = [
  'pods',
  'secrets',
  'configMaps',
  'ingresses',
  'gatewayApi',
  'services',
  'endpoints',
  'endpointSlices',
  'networkPolicies',
  'persistentVolumeClaims',
  'persistentVolumes',
  'volumeSnapshots',
  'volumeSnapshotContents',
  'storageClasses',
  'serviceAccounts',
  'podDisruptionBudgets',
  'priorityClasses',
  'customResources',
  'namespaces',
  'resourceClaims',
  'resourceClaimTemplates',
] as const;

/** Resource keys of `sync.fromHost`. vcsync reads none of them; they are known so typos show. */
export const SYNC_FROM_HOST_KEYS = [
  'nodes',
  'events',
  'ingressClasses',
  'gatewayClasses',
  'gateways',
  'runtimeClasses',
  'priorityClasses',
  'storageClasses',
  'csiNodes',
  'csiDrivers',
  'csiStorageCapacities',
  'customResources',
  'volumeSnapshotClasses',
  'configMaps',
  'secrets',
  'deviceClasses',
] as const;

/** Keys of `privateNodes`. vcsync reads `enabled` (Endpoints sync needs host nodes: Pod addresses are reachable from the host only on host nodes). */
export const PRIVATE_NODES_KEYS = [
  'enabled',
  'importNodeBinaries',
  'kubelet',
  'autoUpgrade',
  'joinNode',
  'autoNodes',
  'vpn',
  'daemon',
  'defaultProfile',
] as const;
