/**
 * A made-up second syncable resource, for the tests that show a new resource is one folder: it
 * syncs virtual ConfigMaps labelled `vcsync.test/sync=true` when `sync.toHost.configMaps.enabled`
 * is true. Its config section (schema, default off, patches compiled), RBAC needs and metrics
 * label are declared here like a real resource's. Nothing in src/ names it: the tests hand it to
 * the commands next to the real registry.
 */
import { resourceSectionSchema, sectionConfig, sectionPatchesPath, type ConfigSection } from '../../../src/config/config-section.js';
import { deepFreeze } from '../../../src/apimachinery/index.js';
import type { ResourceType } from '../../../src/kube/api-path.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { patchesValidator } from '../../../src/syncer/patch-validation.js';
import { buildSectionSyncState } from '../../../src/syncer/sync-state.js';
import type { RbacNeeds, SyncableResource } from '../../../src/syncer/syncable-resource.js';
import type { ToHostResource } from '../../../src/syncer/to-host-resource.js';
import { toHostSyncer, type ToHostDefinition } from '../../../src/syncer/to-host-syncer.js';

/** The label a virtual ConfigMap carries to be synced. */
export const SYNC_LABEL = 'vcsync.test/sync';

const CONFIG_MAPS: ResourceType = { version: 'v1', resource: 'configmaps' };

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const configMapsResource: ToHostResource<ConfigMap> = {
  name: 'configmaps',
  type: CONFIG_MAPS,
  apiVersion: 'v1',
  kind: 'ConfigMap',
  excludedAnnotations: [],
  ignores: () => undefined,
  decide: (virtual) => (virtual.metadata?.labels?.[SYNC_LABEL] === 'true' ? { sync: true } : { sync: false, reason: `no ${SYNC_LABEL}=true label` }),
  hostFields: (virtual) => (virtual.data !== undefined ? { data: { ...virtual.data } } : {}),
};

/** The resource for the generic to-host syncer: its rules, and an informer of its own type on each side. */
export const configMapsDefinition: ToHostDefinition<ConfigMap> = {
  virtual: { name: 'virtual-configmaps' },
  host: { name: 'host-configmaps' },
  secondary: {},
  rules: () => configMapsResource,
};

/** `sync.toHost.configMaps`: off unless written; its patches compiled like Endpoints'. */
export const configMapsConfigSection: ConfigSection = Object.freeze({
  key: 'configMaps',
  schema: resourceSectionSchema(false, {
    section: 'ConfigMaps syncing (virtual → host) of the test resource.',
    enabled: 'Sync virtual ConfigMaps labelled vcsync.test/sync=true to the host cluster. Default false.',
    patches: 'Patches applied to synced ConfigMaps. Default none.',
  }),
  defaults: deepFreeze({ enabled: false, patches: [] }),
  rules: [],
  validators: [patchesValidator(sectionPatchesPath({ key: 'configMaps' }))],
});

/** Reads and writes back ConfigMaps in the virtual cluster; manages their copies on the host. */
const configMapsRbac: RbacNeeds = Object.freeze({
  virtual: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'update', 'patch'] }],
  host: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
});

/** The made-up ConfigMaps resource: one folder, one export, what the registry needs. */
export const configMapsSyncable: SyncableResource = {
  name: 'configmaps',
  kind: 'ConfigMap',
  config: configMapsConfigSection,
  rbac: configMapsRbac,
  enabled: (config) => sectionConfig(config, configMapsConfigSection).enabled,
  validators: [],
  buildState: (options) => buildSectionSyncState(options, configMapsConfigSection),
  build: toHostSyncer(configMapsDefinition),
  previewResource: () => configMapsResource as unknown as ToHostResource<KubeObject>,
};
