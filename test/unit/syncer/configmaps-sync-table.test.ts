import { configMapsDefinition, SYNC_LABEL, type ConfigMap } from '../../support/configmaps-resource/configmaps-syncable.js';
import { syncTable, TABLE_HOST_NAMESPACE } from '../../support/sync-table.js';

// The made-up ConfigMaps resource (no secondary informers) through the same state-table helper as
// Endpoints: what another resource's table looks like.

function virtualConfigMap(name: string, data: Record<string, string>, labels: Record<string, string> = { [SYNC_LABEL]: 'true' }): ConfigMap {
  return { metadata: { name, namespace: 'default', labels }, data };
}

function hostCopy(name: string, data: Record<string, string>): ConfigMap {
  const hostName = `${name}-x-default-x-vc`;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: hostName,
      namespace: TABLE_HOST_NAMESPACE,
      labels: { [SYNC_LABEL]: 'true', 'vcluster.loft.sh/managed-by': 'vc', 'vcluster.loft.sh/namespace': 'default' },
      annotations: {
        'vcluster.loft.sh/object-name': name,
        'vcluster.loft.sh/object-namespace': 'default',
        'vcluster.loft.sh/object-uid': `uid-${name}`,
        'vcluster.loft.sh/object-kind': '/v1, Kind=ConfigMap',
        'vcluster.loft.sh/object-host-name': hostName,
        'vcluster.loft.sh/object-host-namespace': TABLE_HOST_NAMESPACE,
        'vcluster.loft.sh/managed-labels': SYNC_LABEL,
      },
    },
    data,
  };
}

syncTable('the made-up ConfigMaps sync, as a state table', configMapsDefinition, [
  {
    name: 'labelled for sync: created on the host with its data',
    virtual: [virtualConfigMap('settings', { mode: 'fast' })],
    host: [],
    key: 'default/settings',
    outcome: { kind: 'synced', action: 'created' },
    hostAfter: [hostCopy('settings', { mode: 'fast' })],
    writes: ['host create'],
  },
  {
    name: 'the sync label removed: our host copy is deleted',
    virtual: [virtualConfigMap('settings', { mode: 'fast' }, {})],
    host: [hostCopy('settings', { mode: 'fast' })],
    key: 'default/settings',
    outcome: { kind: 'deleted' },
    hostAfter: [],
    writes: ['host delete'],
  },
]);
