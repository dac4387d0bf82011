import type { RequestAttributes, RequestTarget } from '../../../src/management/request-attributes.js';

/** The management group the reference clients hard-code. */
export const MANAGEMENT_GROUP = 'management.loft.sh';

interface ResourceOptions {
  apiGroup?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  target?: RequestTarget;
}

/** A resource request's attributes; management group, cluster-scoped and `Management` target unless given. */
export function resource(verb: string, plural: string, options: ResourceOptions = {}): RequestAttributes {
  const apiGroup = options.apiGroup ?? MANAGEMENT_GROUP;
  const namespace = options.namespace ?? '';
  const name = options.name ?? '';
  const prefix = apiGroup === '' ? '/api/v1' : `/apis/${apiGroup}/v1`;
  const path = [prefix, namespace === '' ? '' : `/namespaces/${namespace}`, `/${plural}`, name === '' ? '' : `/${name}`, options.subresource ? `/${options.subresource}` : ''].join('');
  return { verb, isResourceRequest: true, path, apiGroup, resource: plural, subresource: options.subresource ?? '', namespace, name, target: options.target ?? { kind: 'Management' } };
}

/** A non-resource request's attributes (verb: the lower-case method). */
export function nonResource(verb: string, path: string, target: RequestTarget = { kind: 'Management' }): RequestAttributes {
  return { verb, isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', target };
}

/** Freezes `value` and everything in it, so a test proves the authorizer changes none of its inputs. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Requests the scope tests use, named by what they do (frozen). */
export const REQUESTS = deepFreeze({
  listKeys: resource('list', 'ownedaccesskeys'),
  watchKeys: resource('watch', 'ownedaccesskeys'),
  getKey: resource('get', 'ownedaccesskeys', { name: 'k1' }),
  getOtherKey: resource('get', 'ownedaccesskeys', { name: 'k2' }),
  createKey: resource('create', 'ownedaccesskeys'),
  deleteKey: resource('delete', 'ownedaccesskeys', { name: 'k1' }),
  patchKey: resource('patch', 'ownedaccesskeys', { name: 'k1' }),
  updateKeyStatus: resource('update', 'ownedaccesskeys', { name: 'k1', subresource: 'status' }),
  version: nonResource('get', '/version'),
  headVersion: nonResource('head', '/version'),
  postVersion: nonResource('post', '/version'),
  versionBelow: nonResource('get', '/version/x'),
  api: nonResource('get', '/api'),
  apiV1: nonResource('get', '/api/v1'),
  apis: nonResource('get', '/apis'),
  apisGroup: nonResource('get', `/apis/${MANAGEMENT_GROUP}/v1`),
  openapiV2: nonResource('get', '/openapi/v2'),
  openapiV3: nonResource('get', `/openapi/v3/apis/${MANAGEMENT_GROUP}/v1`),
  healthz: nonResource('get', '/healthz'),
  metrics: nonResource('get', '/metrics'),
  postMetrics: nonResource('post', '/metrics'),
  getInstanceP1V1: resource('get', 'virtualclusterinstances', { namespace: 'p-p1', name: 'v1', target: { kind: 'Management', project: 'p1', virtualCluster: 'v1' } }),
  getInstanceP1V2: resource('get', 'virtualclusterinstances', { namespace: 'p-p1', name: 'v2', target: { kind: 'Management', project: 'p1', virtualCluster: 'v2' } }),
  getInstanceP2V1: resource('get', 'virtualclusterinstances', { namespace: 'p-p2', name: 'v1', target: { kind: 'Management', project: 'p2', virtualCluster: 'v1' } }),
  kubeconfigP1V1: resource('create', 'virtualclusterinstances', { namespace: 'p-p1', name: 'v1', subresource: 'kubeconfig', target: { kind: 'Management', project: 'p1', virtualCluster: 'v1' } }),
  kubeconfigP2V1: resource('create', 'virtualclusterinstances', { namespace: 'p-p2', name: 'v1', subresource: 'kubeconfig', target: { kind: 'Management', project: 'p2', virtualCluster: 'v1' } }),
  getSpaceP1S1: resource('get', 'spaceinstances', { namespace: 'p-p1', name: 's1', target: { kind: 'Management', project: 'p1', space: 's1' } }),
  getSpaceP1S2: resource('get', 'spaceinstances', { namespace: 'p-p1', name: 's2', target: { kind: 'Management', project: 'p1', space: 's2' } }),
  getSpaceP2S1: resource('get', 'spaceinstances', { namespace: 'p-p2', name: 's1', target: { kind: 'Management', project: 'p2', space: 's1' } }),
  podsInSpaceP1S1: resource('list', 'pods', { apiGroup: '', namespace: 's1', target: { kind: 'Cluster', cluster: 'c1', project: 'p1', space: 's1' } }),
  podsOnC1: resource('list', 'pods', { apiGroup: '', namespace: 'default', target: { kind: 'Cluster', cluster: 'c1' } }),
  podsOnC2: resource('list', 'pods', { apiGroup: '', namespace: 'default', target: { kind: 'Cluster', cluster: 'c2' } }),
  endpointsInV1: resource('list', 'endpoints', { apiGroup: '', namespace: 'default', target: { kind: 'VirtualCluster', name: 'v1', namespace: 'p-p1', project: 'p1' } }),
  endpointsInV1Elsewhere: resource('list', 'endpoints', { apiGroup: '', namespace: 'default', target: { kind: 'VirtualCluster', name: 'v1', namespace: 'team-x' } }),
  endpointsInV2: resource('list', 'endpoints', { apiGroup: '', namespace: 'default', target: { kind: 'VirtualCluster', name: 'v2', namespace: 'p-p1', project: 'p1' } }),
} satisfies Record<string, RequestAttributes>);

/** A request's name in {@link REQUESTS}. */
export type RequestName = keyof typeof REQUESTS;
