/**
 * The management server's authorizer: every request must be allowed by the scope of
 * the key it authenticated with (`authorizeScope`), and OwnedAccessKey requests follow the one
 * ownership and escalation rule of `key-ownership.ts`.
 */
import { LRUCache } from 'lru-cache';
import { deepFreeze, type JsonObject } from '../apimachinery/index.js';
import type { AccessDecision, AuthenticatedUser, NonResourceDecision, ReferencedOwner, RequestAuthorizer, ResourceRequest, StoredObject } from '../apiserver/index.js';
import type { AccessScope } from './access-scope.js';
import { authorizeScope, forbiddenRequest } from './authorization.js';
import { describeKeyRules, isDiscoveryRead } from './key-rules.js';
import { authorizeKeyRequest, ownsKey, type CallerIdentity, type KeyOwnership } from './key-ownership.js';
import { keyWidenings } from './key-widening.js';
import { KEY_OWNERS_EXTRA, KEY_SCOPE_EXTRA, MANAGEMENT_ADMIN_GROUP, SCOPE_PARSE_CACHE_MAX } from './management-constants.js';
import { specOf } from './owned-access-key-kind.js';
import { managementTarget, nonResourceAttributes, resourceAttributes, type RequestAttributes } from './request-attributes.js';

/** Whether `user` is a management admin (member of {@link MANAGEMENT_ADMIN_GROUP}). */
export function isManagementAdmin(user: AuthenticatedUser): boolean {
  return user.groups.includes(MANAGEMENT_ADMIN_GROUP);
}

/** Scope JSON → the scope it parses to (frozen: one value shared by every request with that scope). */
const parsedScopes = new LRUCache<string, AccessScope>({ max: SCOPE_PARSE_CACHE_MAX });

/**
 * The scope of the key `user` authenticated with, or undefined when it has none (unrestricted).
 * Parsed once per distinct scope and deeply frozen; every request is still checked against it.
 */
export function callerScope(user: AuthenticatedUser): AccessScope | undefined {
  const json = user.extra?.[KEY_SCOPE_EXTRA]?.[0];
  if (json === undefined) return undefined;
  let scope = parsedScopes.get(json);
  if (scope === undefined) {
    scope = deepFreeze(JSON.parse(json) as AccessScope);
    parsedScopes.set(json, scope);
  }
  return scope;
}

/** The caller as the ownership rules see it: the owners its key names, its groups, whether it is an admin, its scope. */
export function callerIdentity(user: AuthenticatedUser): CallerIdentity {
  const identity: CallerIdentity = { groups: [...user.groups], admin: isManagementAdmin(user) };
  for (const owner of user.extra?.[KEY_OWNERS_EXTRA] ?? []) {
    const at = owner.indexOf('=');
    const field = owner.slice(0, at);
    if (field === 'user' || field === 'team' || field === 'subject') identity[field] = owner.slice(at + 1);
  }
  const scope = callerScope(user);
  if (scope !== undefined) identity.scope = scope;
  return identity;
}

function stringField(spec: JsonObject, field: string): string | undefined {
  const value = spec[field];
  return typeof value === 'string' ? value : undefined;
}

/** The ownership fields of an OwnedAccessKey (written or stored). */
function keyOwnership(object: StoredObject | JsonObject | undefined): KeyOwnership {
  const spec = specOf(object);
  const ownership: KeyOwnership = {};
  for (const field of ['user', 'team', 'subject'] as const) {
    const value = stringField(spec, field);
    if (value !== undefined) ownership[field] = value;
  }
  if (Array.isArray(spec['groups'])) ownership.groups = spec['groups'].filter((group): group is string => typeof group === 'string');
  if (spec['scope'] !== undefined && spec['scope'] !== null) ownership.scope = spec['scope'] as AccessScope;
  return ownership;
}

/**
 * The ownership rule of `key-ownership.ts` in the core's terms: an admin may do everything; anyone
 * else may work only with the OwnedAccessKeys it owns (`ownsKey`: it sees only those) and ask for
 * DirectClusterEndpointTokens (within its own scope, checked when issued), and no other resource. Every key write, an admin's too, must pass `authorizeKeyRequest` (a non-admin writes
 * only its own keys, with groups it has; nobody writes a scope beyond its own; a write that widens
 * a key, on any path: PUT, every patch type, apply, status, yields only a key the caller could
 * have created). A pure function.
 */
export function authorizeOwnership(user: AuthenticatedUser, request: ResourceRequest): AccessDecision {
  const caller = callerIdentity(user);
  // Anyone whose scope allows it may ask for a token or a kube config; neither reaches beyond the caller's key.
  if (request.type.plural === 'directclusterendpointtokens' || request.type.plural === 'virtualclusterinstances') return { allowed: true };
  if (request.type.plural !== 'ownedaccesskeys') {
    return caller.admin ? { allowed: true } : { allowed: false, reason: `only members of ${MANAGEMENT_ADMIN_GROUP} may use ${request.type.plural}` };
  }
  if (!caller.admin && caller.user === undefined && caller.team === undefined && caller.subject === undefined) {
    return { allowed: false, reason: 'the caller did not authenticate with an access key, so it owns no keys' };
  }
  const refuseWrite = (object: JsonObject, old: JsonObject | undefined): string | undefined => {
    const keys = { proposed: keyOwnership(object), ...(old !== undefined ? { stored: keyOwnership(old), widened: keyWidenings(old, object) } : {}) };
    const decision = authorizeKeyRequest(caller, old === undefined ? 'create' : 'update', keys);
    return decision.allowed ? undefined : decision.reason;
  };
  if (caller.admin) return { allowed: true, refuseWrite };
  return { allowed: true, visible: (object) => ownsKey(caller, keyOwnership(object)), refuseWrite };
}

/**
 * The management server's rule for a resource request: the caller key's scope must allow it
 * (otherwise it throws the 403 Forbidden of `forbiddenRequest`), then {@link authorizeOwnership}.
 */
export function authorizeManagementRequest(user: AuthenticatedUser, request: ResourceRequest, path: string): AccessDecision {
  const attrs = resourceAttributes(request, path, managementTarget(request));
  const scoped = authorizeScope(callerScope(user), attrs);
  if (!scoped.allowed) throw forbiddenRequest(attrs, scoped.reason);
  return authorizeOwnership(user, request);
}

/**
 * The management server's rule for non-resource requests: every key may read discovery, OpenAPI
 * and `/version` (`isDiscoveryRead`); anything else its scope must allow (else the 403 of `forbiddenRequest`).
 */
export function authorizeManagementNonResource(user: AuthenticatedUser, method: string, path: string): NonResourceDecision {
  const attrs = nonResourceAttributes(method, path);
  if (isDiscoveryRead(attrs)) return { allowed: true };
  const scoped = authorizeScope(callerScope(user), attrs);
  if (!scoped.allowed) throw forbiddenRequest(attrs, scoped.reason);
  return { allowed: true };
}

/**
 * Whether `user` may update the finalizers of `owner`, which setting `blockOwnerDeletion: true` on
 * a reference to it requires: its key's scope must allow `update` of `<plural>/finalizers` on it,
 * and the owner must be an OwnedAccessKey the caller may change (an admin's any, anyone else's one
 * of its own: a key that does not exist is nobody's). A pure function.
 */
export function authorizeManagementOwnerFinalizers(user: AuthenticatedUser, owner: ReferencedOwner): NonResourceDecision {
  const path = `/apis/${owner.type.group}/${owner.type.version}/${owner.type.plural}/${encodeURIComponent(owner.name)}/finalizers`;
  const attrs: RequestAttributes = {
    verb: 'update',
    isResourceRequest: true,
    path,
    apiGroup: owner.type.group,
    resource: owner.type.plural,
    subresource: 'finalizers',
    namespace: owner.namespace,
    name: owner.name,
    target: { kind: 'Management' },
  };
  const scoped = authorizeScope(callerScope(user), attrs);
  if (!scoped.allowed) return scoped;
  const caller = callerIdentity(user);
  if (caller.admin) return { allowed: true };
  if (owner.type.plural !== 'ownedaccesskeys') return { allowed: false, reason: `only members of ${MANAGEMENT_ADMIN_GROUP} may use ${owner.type.plural}` };
  if (owner.object === undefined || !ownsKey(caller, keyOwnership(owner.object))) {
    return { allowed: false, reason: `the ownedaccesskey ${JSON.stringify(owner.name)} is not one of the caller's own keys` };
  }
  return { allowed: true };
}

/** The management server's default {@link RequestAuthorizer}: scope on every request, ownership and escalation on keys. */
export const MANAGEMENT_AUTHORIZER: RequestAuthorizer = {
  authorize: authorizeManagementRequest,
  authorizeNonResource: authorizeManagementNonResource,
  authorizeOwnerFinalizers: authorizeManagementOwnerFinalizers,
  describeRules: (user) => describeKeyRules(callerScope(user)),
};
