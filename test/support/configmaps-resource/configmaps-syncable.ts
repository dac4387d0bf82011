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
import { RateLimitingWorkQueue } from '../../../src/kube/rate-limiting-queue.js';
import { buildSyncState } from '../../../src/syncer/sync-state.js';
import type { SyncableResource } from '../../../src/syncer/syncable-resource.js';
import { ToHostController } from '../../../src/syncer/to-host-controller.js';
import { ToHostReconciler } from '../../../src/syncer/to-host-reconciler.js';
import type { ToHostResource } from '../../../src/syncer/to-host-resource.js';
import { LABEL_MANAGED_BY } from '../../../src/translate/keys.js';

/** The label a virtual ConfigMap carries to be synced. */
export const SYNC_LABEL = 'vcsync.test/sync';

const CONFIG_MAPS: ResourceType = { version: 'v1', resource: 'configmaps' };
const ENABLED_PATH = ['sync', 'toHost', 'configMaps', 'enabled'];

interface ConfigMap extends KubeObject {
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
  build(context) {
    const virtualInformer = context.informers.informer<ConfigMap>({ name: 'virtual-configmaps', cluster: 'virtual', resource: CONFIG_MAPS });
    const hostInformer = context.informers.informer<ConfigMap>({
      name: 'host-configmaps',
      cluster: 'host',
      resource: CONFIG_MAPS,
      namespace: context.hostWatchNamespace,
      labelSelector: `${LABEL_MANAGED_BY}=${context.vclusterName}`,
    });
    const reconciler = new ToHostReconciler<ConfigMap>({
      resource: configMapsResource,
      virtualCache: virtualInformer,
      hostCache: hostInformer,
      virtualClient: context.virtualClient,
      hostClient: context.hostClient,
      state: context.state,
      logger: context.logger,
    });
    const controller = new ToHostController<ConfigMap>({
      kind: configMapsResource,
      reconciler,
      virtualInformer,
      hostInformer,
      queue: new RateLimitingWorkQueue({ name: 'configmaps', metrics: context.kubeMetrics }),
      events: context.events,
      metrics: context.controllerMetrics,
      logger: context.logger,
    });
    return {
      run: (signal) => controller.run(signal),
      updateState(state) {
        reconciler.updateState(state);
        controller.enqueueAll();
      },
    };
  },
  previewResource: () => configMapsResource as unknown as ToHostResource<KubeObject>,
};
