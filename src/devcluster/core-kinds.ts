import type { KindDefinition, KindSchema, KindStrategy } from '../apiserver/index.js';
import { certificateSigningRequestStrategy } from './certificate-signing-request-rules.js';
import { CONFIG_MAP_STRATEGY, SECRET_STRATEGY } from './config-data-rules.js';
import { ENDPOINT_SLICE_STRATEGY, ENDPOINTS_STRATEGY } from './endpoints-rules.js';
import { POD_STRATEGY } from './kind-rules.js';
import { mergeStrategiesOf } from './patch-strategies.js';
import { CLUSTER_ROLE_BINDING_STRATEGY, CLUSTER_ROLE_STRATEGY, ROLE_BINDING_STRATEGY, ROLE_STRATEGY } from './rbac-rules.js';
import { realKindSchema } from './real-schemas.js';
import { STATEFUL_SET_STRATEGY } from './stateful-set-rules.js';
import { TABLE_COLUMNS } from './table-columns.js';

/** A core kind's definition before its schema, columns and merge keys are attached. */
type CoreKindSpec = Omit<KindDefinition, 'columns' | 'schema' | 'mergeStrategies'>;

/** Extra field-selector fields of Events, as the real server offers them. */
const EVENT_SELECTABLE_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

const POD_SELECTABLE_FIELDS = ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'];

const RBAC = 'rbac.authorization.k8s.io';

const SPECS: readonly CoreKindSpec[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    shortNames: ['ns'],
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    returnDeletedObject: true,
    nameRule: 'dns1123-label',
    selectableFields: ['status.phase'],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    allowCreateOnUpdate: true,
    returnDeletedObject: true,
    nameRule: 'dns1035-label',
  },
  { group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', shortNames: ['ep'], allowCreateOnUpdate: true, strategy: ENDPOINTS_STRATEGY },
  {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status'],
    returnDeletedObject: true,
    selectableFields: POD_SELECTABLE_FIELDS,
    strategy: POD_STRATEGY,
    generation: 'spec',
  },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', selectableFields: ['type'], strategy: SECRET_STRATEGY },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'], strategy: CONFIG_MAP_STRATEGY },
  {
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    shortNames: ['ev'],
    allowCreateOnUpdate: true,
    selectableFields: EVENT_SELECTABLE_FIELDS,
    // Events' `source` selects on source.component, as in Kubernetes.
    selectableFieldPaths: { source: 'source.component' },
  },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', shortNames: ['sa'], allowCreateOnUpdate: true },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', allowCreateOnUpdate: true },
  { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', strategy: ENDPOINT_SLICE_STRATEGY, generation: 'spec-and-labels' },
  {
    group: 'certificates.k8s.io',
    version: 'v1',
    kind: 'CertificateSigningRequest',
    plural: 'certificatesigningrequests',
    shortNames: ['csr'],
    namespaced: false,
    subresources: ['approval', 'status'],
    nameRule: 'path-segment',
    selectableFields: ['spec.signerName'],
    strategy: certificateSigningRequestStrategy({ now: Date.now }),
  },
  // Stored only: no controller makes a StatefulSet's Pods, the authorizer does not read RBAC objects.
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status'],
    nameRule: 'dns1123-label',
    strategy: STATEFUL_SET_STRATEGY,
    generation: 'spec',
  },
  { group: RBAC, version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false, nameRule: 'path-segment', strategy: CLUSTER_ROLE_BINDING_STRATEGY },
  { group: RBAC, version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false, nameRule: 'path-segment', strategy: CLUSTER_ROLE_STRATEGY },
  { group: RBAC, version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', nameRule: 'path-segment', strategy: ROLE_BINDING_STRATEGY },
  { group: RBAC, version: 'v1', kind: 'Role', plural: 'roles', nameRule: 'path-segment', strategy: ROLE_STRATEGY },
];

/** The group-version-kind of every kind the devcluster serves, in discovery order: what the OpenAPI fixture captures. */
export const CORE_KIND_IDS: readonly { group: string; version: string; kind: string }[] = SPECS.map(({ group, version, kind }) => ({ group, version, kind }));

/** The real server's schema of a kind; every served kind has one in the fixture (a test checks it). */
function kindSchemaOf(spec: CoreKindSpec): KindSchema {
  const schema = realKindSchema(spec);
  if (schema === undefined) throw new TypeError(`the OpenAPI fixture has no schema for ${spec.kind}; regenerate it with npm run openapi-fixture`);
  return schema;
}

/**
 * The strategies that hold state of a running devcluster (the namespace lifecycle, the Service
 * cluster-IP pool), by kind; they replace the stateless ones of the definitions.
 */
export type StatefulStrategies = Readonly<Partial<Record<'Namespace' | 'Service', KindStrategy>>>;

/**
 * The kinds the devcluster serves, in discovery order: schema, Table columns, field selectors,
 * strategic merge keys and strategy of each. Without `stateful`, Namespaces and Services get no
 * strategy (enough for anything but writing them).
 */
export function coreKindDefinitions(stateful: StatefulStrategies = {}): KindDefinition[] {
  return SPECS.map((spec) => {
    const strategy = stateful[spec.kind as keyof StatefulStrategies] ?? spec.strategy;
    return {
      ...spec,
      ...(TABLE_COLUMNS[spec.kind] !== undefined ? { columns: TABLE_COLUMNS[spec.kind] } : {}),
      schema: kindSchemaOf(spec),
      mergeStrategies: mergeStrategiesOf(spec.kind),
      ...(strategy !== undefined ? { strategy } : {}),
    };
  });
}
