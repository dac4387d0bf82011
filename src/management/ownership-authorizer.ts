import type { JsonObject } from '../apiserver/kind-strategy.js';
import type { AuthenticatedUser } from '../apiserver/request-authentication.js';
import type { AccessDecision, RequestAuthorizer } from '../apiserver/request-authorization.js';
import type { ResourceRequest } from '../apiserver/request-info.js';
import type { StoredObject } from '../apiserver/storage.js';
import { MANAGEMENT_ADMIN_GROUP, OWNER_KIND_EXTRA, OWNER_NAME_EXTRA } from './management-constants.js';
import { ownerOf, specOf } from './owned-access-key-kind.js';

/** Whether `user` is a management admin (member of {@link MANAGEMENT_ADMIN_GROUP}). */
export function isManagementAdmin(user: AuthenticatedUser): boolean {
  return user.groups.includes(MANAGEMENT_ADMIN_GROUP);
}

/**
 * The default ownership rule: an admin may do everything; anyone else may work only with the
 * OwnedAccessKeys it owns (same owner kind and name as the key it authenticated with: it sees only
 * those, and a write may not give a key to someone else), and may not write a key carrying a group
 * it is not in itself (no escalation; groups the stored key already has may stay). Every other resource is admin-only. A pure function.
 */
export function authorizeOwnership(user: AuthenticatedUser, request: ResourceRequest): AccessDecision {
  if (isManagementAdmin(user)) return { allowed: true };
  if (request.type.plural !== 'ownedaccesskeys') return { allowed: false, reason: `only members of ${MANAGEMENT_ADMIN_GROUP} may use ${request.type.plural}` };
  const kind = user.extra?.[OWNER_KIND_EXTRA]?.[0];
  const name = user.extra?.[OWNER_NAME_EXTRA]?.[0];
  if (kind === undefined || name === undefined) return { allowed: false, reason: 'the caller did not authenticate with an access key, so it owns no keys' };
  return {
    allowed: true,
    visible: (object: StoredObject | JsonObject) => {
      const owner = ownerOf(object);
      return owner !== undefined && owner.kind === kind && owner.name === name;
    },
    refuseWrite: (object: JsonObject, old: JsonObject | undefined) => {
      const groups = specOf(object)['groups'];
      const kept = specOf(old)['groups'];
      const had = Array.isArray(kept) ? kept : [];
      const extra = Array.isArray(groups) ? groups.filter((group) => typeof group !== 'string' || (!user.groups.includes(group) && !had.includes(group))) : [];
      if (extra.length === 0) return undefined;
      return `a key may not carry groups its creator is not in (${extra.map((group) => JSON.stringify(group)).join(', ')}): ask a member of ${MANAGEMENT_ADMIN_GROUP}`;
    },
  };
}

/** {@link authorizeOwnership} as the core's {@link RequestAuthorizer}. */
export const OWNERSHIP_AUTHORIZER: RequestAuthorizer = { authorize: authorizeOwnership };
