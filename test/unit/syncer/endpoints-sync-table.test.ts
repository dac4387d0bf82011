import { endpointsDefinition } from '../../../src/syncer/endpoints/endpoints-definition.js';
import type { Endpoints, Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { CoreResources } from '../../../src/kube/api-path.js';
import { syncTable, TABLE_HOST_NAMESPACE, type TableSides } from '../../support/sync-table.js';

// The Endpoints rules as a state table: virtual and host objects before, one reconcile of the
// key, the outcome, and both sides after. Expected host copies are written out literally (names,
// marker labels and annotations as vcluster writes them), not computed by the translator.

type Subsets = Endpoints['subsets'];
type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

const POD_SUBSETS: Subsets = [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-0', namespace: 'default', uid: 'pod-uid', resourceVersion: '9' } }], ports: [{ port: 80 }] }];
/** {@link POD_SUBSETS} on the host: the Pod reference translated, its uid and resourceVersion cleared. */
const POD_SUBSETS_ON_HOST: Subsets = [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-0-x-default-x-vc', namespace: TABLE_HOST_NAMESPACE } }], ports: [{ port: 80 }] }];
const OTHER_SUBSETS: Subsets = [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ port: 80 }] }];

function virtualEndpoints(name: string, subsets: Subsets = POD_SUBSETS, meta: Meta & { uid?: string; namespace?: string } = {}): Endpoints {
  const { uid, namespace, ...rest } = meta;
  return { metadata: { name, namespace: namespace ?? 'default', ...(uid !== undefined ? { uid } : {}), ...rest }, subsets };
}

function service(name: string, selector?: Record<string, string>): Service {
  return { metadata: { name, namespace: 'default' }, spec: selector !== undefined ? { selector } : {} };
}

/** The host copy of virtual `default/<name>` (uid `uid-<name>` unless told) as vcsync writes it. */
function hostCopy(name: string, subsets: Subsets = POD_SUBSETS_ON_HOST, meta: Meta & { virtualUid?: string } = {}): Endpoints {
  const hostName = `${name}-x-default-x-vc`;
  const copied = Object.keys(meta.annotations ?? {}).sort();
  const copiedLabels = Object.keys(meta.labels ?? {}).sort();
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: hostName,
      namespace: TABLE_HOST_NAMESPACE,
      labels: { ...meta.labels, 'vcluster.loft.sh/managed-by': 'vc', 'vcluster.loft.sh/namespace': 'default' },
      annotations: {
        ...meta.annotations,
        'vcluster.loft.sh/object-name': name,
        'vcluster.loft.sh/object-namespace': 'default',
        'vcluster.loft.sh/object-uid': meta.virtualUid ?? `uid-${name}`,
        'vcluster.loft.sh/object-kind': '/v1, Kind=Endpoints',
        'vcluster.loft.sh/object-host-name': hostName,
        'vcluster.loft.sh/object-host-namespace': TABLE_HOST_NAMESPACE,
        ...(copied.length > 0 ? { 'vcluster.loft.sh/managed-annotations': copied.join('\n') } : {}),
        // vcsync (unlike vcluster's Endpoints syncer) also records the labels it copied.
        ...(copiedLabels.length > 0 ? { 'vcluster.loft.sh/managed-labels': copiedLabels.join('\n') } : {}),
      },
    },
    subsets,
  };
}

/** Another writer's edit of the host copy of `default/web`. */
const hostEdit =
  (edit: (object: KubeObject) => KubeObject) =>
  (sides: TableSides): void =>
    sides.host.modify(CoreResources.endpoints, TABLE_HOST_NAMESPACE, 'web-x-default-x-vc', edit);

syncTable('the Endpoints sync, as a state table', endpointsDefinition, [
  {
    name: 'a selector-less Service: the Endpoints are created on the host, Pod references translated',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web')] },
    host: [],
    key: 'default/web',
    outcome: { kind: 'synced', action: 'created' },
    hostAfter: [hostCopy('web')],
    writes: ['host create'],
  },
  {
    name: 'changed virtual subsets: the host copy is updated to them',
    virtual: [virtualEndpoints('web', OTHER_SUBSETS)],
    secondary: { services: [service('web')] },
    host: [hostCopy('web')],
    key: 'default/web',
    outcome: { kind: 'synced', action: 'updated' },
    hostAfter: [hostCopy('web', OTHER_SUBSETS)],
    writes: ['host update'],
  },
  {
    name: 'the host copy already as desired: nothing written',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web')] },
    host: [hostCopy('web')],
    key: 'default/web',
    outcome: { kind: 'unchanged' },
    writes: [],
  },
  {
    name: 'drift on the host (subsets changed there): repaired from the virtual object, nothing flows back',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web')] },
    host: [],
    key: 'default/web',
    afterFirstSync: hostEdit((o) => ({ ...o, subsets: OTHER_SUBSETS })),
    outcome: { kind: 'synced', action: 'updated' },
    virtualAfter: [virtualEndpoints('web')],
    hostAfter: [hostCopy('web')],
    writes: ['host update'],
  },
  {
    name: 'labels and annotations added on the host flow back to the virtual object (then recorded as copied on the host); subsets do not',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web')] },
    host: [],
    key: 'default/web',
    afterFirstSync: hostEdit((o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { ...o.metadata?.labels, team: 'blue' }, annotations: { ...o.metadata?.annotations, note: 'from-host' } },
    })),
    outcome: { kind: 'synced', action: 'updated' },
    virtualAfter: [virtualEndpoints('web', POD_SUBSETS, { labels: { team: 'blue' }, annotations: { note: 'from-host' } })],
    hostAfter: [hostCopy('web', POD_SUBSETS_ON_HOST, { labels: { team: 'blue' }, annotations: { note: 'from-host' } })],
    writes: ['virtual update', 'host update'],
  },
  {
    name: 'virtual labels and annotations are copied; the leader annotation of the virtual control plane is not',
    virtual: [virtualEndpoints('web', POD_SUBSETS, { labels: { app: 'web' }, annotations: { owner: 'shop', 'control-plane.alpha.kubernetes.io/leader': '{"holderIdentity":"x"}' } })],
    secondary: { services: [service('web')] },
    host: [],
    key: 'default/web',
    outcome: { kind: 'synced', action: 'created' },
    hostAfter: [hostCopy('web', POD_SUBSETS_ON_HOST, { labels: { app: 'web' }, annotations: { owner: 'shop' } })],
  },
  {
    name: 'the Service has a selector: the host copy we wrote earlier is deleted (the host controller owns those Endpoints)',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web', { app: 'web' })] },
    host: [hostCopy('web')],
    key: 'default/web',
    outcome: { kind: 'deleted' },
    hostAfter: [],
    writes: ['host delete'],
  },
  {
    name: 'no virtual Service of the same name: skipped, nothing written',
    virtual: [virtualEndpoints('web')],
    host: [],
    key: 'default/web',
    outcome: { kind: 'skipped', cause: 'excluded', reason: 'no virtual Service of the same name' },
    writes: [],
  },
  {
    name: 'the virtual Endpoints deleted: the host copy is deleted',
    virtual: [],
    secondary: { services: [service('web')] },
    host: [hostCopy('web')],
    key: 'default/web',
    outcome: { kind: 'deleted' },
    hostAfter: [],
    writes: ['host delete'],
  },
  {
    name: 'the virtual object was recreated (uid differs from the copy\'s): the copy is deleted and created again',
    virtual: [virtualEndpoints('web', POD_SUBSETS, { uid: 'new-uid' })],
    secondary: { services: [service('web')] },
    host: [hostCopy('web', POD_SUBSETS_ON_HOST, { virtualUid: 'old-uid' })],
    key: 'default/web',
    outcome: { kind: 'synced', action: 'recreated' },
    hostAfter: [hostCopy('web', POD_SUBSETS_ON_HOST, { virtualUid: 'new-uid' })],
    writes: ['host delete', 'host create'],
  },
  {
    name: 'a host object of the same name that this vcluster did not write: a terminal error, the object left alone',
    virtual: [virtualEndpoints('web')],
    secondary: { services: [service('web')] },
    host: [{ metadata: { name: 'web-x-default-x-vc', namespace: TABLE_HOST_NAMESPACE, labels: { app: 'theirs' } }, subsets: OTHER_SUBSETS } as Endpoints],
    key: 'default/web',
    error: 'HostObjectNotManaged',
    writes: ['host create'],
  },
  {
    name: 'default/kubernetes is never synced, even with a selector-less Service',
    virtual: [virtualEndpoints('kubernetes')],
    secondary: { services: [service('kubernetes')] },
    host: [],
    key: 'default/kubernetes',
    outcome: { kind: 'skipped', cause: 'never_synced' },
    writes: [],
  },
  {
    name: 'the resource switched off: skipped, the host copy left as it is',
    virtual: [virtualEndpoints('web', OTHER_SUBSETS)],
    secondary: { services: [service('web')] },
    host: [hostCopy('web')],
    key: 'default/web',
    state: { enabled: false },
    outcome: { kind: 'skipped', cause: 'disabled' },
    writes: [],
  },
]);
