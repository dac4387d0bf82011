/**
 * The management server's authorizer (issue 9 §4): every request must be allowed by the scope of
 * the key it authenticated with (`authorizeScope`), and OwnedAccessKey requests follow the one
 * ownership and escalation rule of `key-ownership.ts`.
 */
import type { JsonObject } from '../apiserver/kind-strategy.js';
import type { AuthenticatedUser } from '../apiserver/request-authentication.js';
import type { AccessDecision, NonResourceDecision, RequestAuthorizer } from '../apiserver/request-authorization.js';
import type { ResourceRequest } from '../apiserver/request-info.js';
import type { StoredObject } from '../apiserver/storage.js';
import type { AccessScope } from './access-scope.js';
import { authorizeScope, forbiddenRequest } from './authorization.js';
import { authorizeKeyRequest, ownsKey, type CallerIdentity, type KeyOwnership } from './key-ownership.js';
import { KEY_OWNERS_EXTRA, KEY_SCOPE_EXTRA, MANAGEMENT_ADMIN_GROUP } from './management-constants.js';
import { specOf } from './owned-access-key-kind.js';
import { managementTarget, nonResourceAttributes, resourceAttributes } from './request-attributes.js';

/** Whether `user` is a management admin (member of {@link MANAGEMENT_ADMIN_GROUP}). */
export function isManagementAdmin(user: AuthenticatedUser): boolean {
  return user.groups.includes(MANAGEMENT_ADMIN_GROUP);
}

/** The scope of the key `user` authenticated with, or undefined when it has none (unrestricted). */
export function callerScope(user: AuthenticatedUser): AccessScope | undefined {
  const json = user.extra?.[KEY_SCOPE_EXTRA]?.[0];
  return json === undefined ? undefined : (JSON.parse(json) as AccessScope);
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
 * only its own keys, with groups it has; nobody writes a scope beyond its own). A pure function.
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
    const keys = { proposed: keyOwnership(object), ...(old !== undefined ? { stored: keyOwnership(old) } : {}) };
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

/** The management server's rule for discovery, OpenAPI and `/version`: the caller key's scope must allow it (else the 403 of `forbiddenRequest`). */
export function authorizeManagementNonResource(user: AuthenticatedUser, method: string, path: string): NonResourceDecision {
  const attrs = nonResourceAttributes(method, path);
  const scoped = authorizeScope(callerScope(user), attrs);
  if (!scoped.allowed) throw forbiddenRequest(attrs, scoped.reason);
  return { allowed: true };
}

/** The management server's default {@link RequestAuthorizer}: scope on every request, ownership and escalation on keys. */
export const MANAGEMENT_AUTHORIZER: RequestAuthorizer = { authorize: authorizeManagementRequest, authorizeNonResource: authorizeManagementNonResource };
