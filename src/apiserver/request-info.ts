import { methodNotAllowed, pathNotFound, resourceNotServed } from '../apimachinery/index.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';

/** The Kubernetes verb a resource request maps to. */
export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** A request for a served resource, parsed from its path and method. */
export interface ResourceRequest {
  readonly type: ResourceType;
  /** '' for cluster-scoped requests and for lists across all namespaces. */
  readonly namespace: string;
  /** '' for collection requests. */
  readonly name: string;
  /** A subresource the type serves (`status`, `approval`), one of its actions (see `KindDefinition.actions`), or undefined. */
  readonly subresource: string | undefined;
  readonly verb: RequestVerb;
}

function verbOf(method: string, named: boolean, watch: boolean, path: string): RequestVerb {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (named) return watch ? 'watch' : 'get';
      return watch ? 'watch' : 'list';
    case 'POST':
      if (!named) return 'create';
      break;
    case 'PUT':
      if (named) return 'update';
      break;
    case 'PATCH':
      if (named) return 'patch';
      break;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      break;
  }
  throw methodNotAllowed(method, path);
}

/**
 * Parses a resource path the way the real server's RequestInfo does: `/api/v1/...` or
 * `/apis/<group>/<version>/...`, then `[watch/]` (legacy), `namespaces/<ns>/<plural>[/<name>[/<sub>]]`
 * or `<plural>[/<name>[/<sub>]]`, where `namespaces/<ns>/status|finalize` address the namespace
 * itself. Resources `registry` does not serve answer 404, unsupported verbs 405.
 */
export function parseResourceRequest(registry: ResourceRegistry, method: string, path: string, watchParam: boolean): ResourceRequest {
  const parts = path.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    throw pathNotFound(path);
  }
  // Inside a served group the real server answers a Status without details; outside, a plain 404.
  const unknownPath = group === '' || registry.namedGroups().includes(group) ? resourceNotServed : pathNotFound;
  let watch = watchParam;
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  let scoped = false;
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
    namespace = rest[1] ?? '';
    scoped = true;
    rest = rest.slice(2);
  }
  const [plural = '', name = '', subresource, ...extra] = rest;
  const type = registry.find(group, version, plural);
  if (type === undefined || extra.length > 0) throw unknownPath(path);
  if (!type.namespaced && scoped) throw unknownPath(path);
  if (subresource !== undefined && type.actions.has(subresource)) {
    // An action is only ever created: POST <plural>/<name>/<action>.
    if (method !== 'POST') throw methodNotAllowed(method, path);
    return { type, namespace, name, subresource, verb: 'create' };
  }
  const served = type.subresources.find((candidate) => candidate === subresource);
  if (subresource !== undefined && served === undefined) throw unknownPath(path);
  const verb = verbOf(method, name !== '', watch, path);
  if (subresource !== undefined && !['get', 'update', 'patch'].includes(verb)) throw methodNotAllowed(method, path);
  if (!(type.verbs as readonly string[]).includes(verb)) throw methodNotAllowed(method, path);
  return { type, namespace, name, subresource: served, verb };
}
