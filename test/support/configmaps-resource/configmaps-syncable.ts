/**
 * A made-up second syncable resource, for the tests that show a new resource is one folder: it
 * syncs virtual ConfigMaps labelled `vcsync.test/sync=true` when `sync.toHost.configMaps.enabled`
 * is true, and checks that this switch is a boolean. Nothing in src/ names it: the tests hand it
 * to the commands next to the real registry.
 */
import type { ConfigValidator } from '../../../src/config/check-config.js';
import { valueAtConfigPath } from '../../../src/config/config-path.js';
import { configErrorAt } from '../../../src/config/parse-config.js';
import type { ResourceType } from '../../../src/kube/api-path.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { buildSyncState } from '../../../src/syncer/sync-state.js';
import type { SyncableResource } from '../../../src/syncer/syncable-resource.js';
import type { ToHostResource } from '../../../src/syncer/to-host-resource.js';
import { toHostSyncer, type ToHostDefinition } from '../../../src/syncer/to-host-syncer.js';

/** The label a virtual ConfigMap carries to be synced. */
export const SYNC_LABEL = 'vcsync.test/sync';

const CONFIG_MAPS: ResourceType = { version: 'v1', resource: 'configmaps' };
const ENABLED_PATH = ['sync', 'toHost', 'configMaps', 'enabled'];

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

const enabledIsBoolean: ConfigValidator = (written, source) => {
  const enabled = valueAtConfigPath(written, ENABLED_PATH);
  if (enabled === undefined || typeof enabled === 'boolean') return [];
  return [configErrorAt(source, ENABLED_PATH, 'CONFIGMAPS_ENABLED', 'must be true or false')];
};

/** The made-up ConfigMaps resource: one folder, one export, what the registry needs. */
export const configMapsSyncable: SyncableResource = {
  name: 'configmaps',
  kind: 'ConfigMap',
  enabled: (config) => valueAtConfigPath(config, ENABLED_PATH) === true,
  validators: [enabledIsBoolean],
  buildState: (options) => buildSyncState(options, { enabled: true, patches: [] }, 'sync.toHost.configMaps.patches'),
  build: toHostSyncer(configMapsDefinition),
  previewResource: () => configMapsResource as unknown as ToHostResource<KubeObject>,
};
