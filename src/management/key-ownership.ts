/**
 * Ownership of access keys: a key belongs to its `spec.user` / `spec.team` /
 * `spec.subject`; a caller sees and changes only its own keys unless it is an admin, and cannot
 * create (or turn a key into) one for someone else or one reaching further than itself.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AccessScope } from './access-scope.js';
import type { AuthorizationDecision } from './authorization.js';
import type { KeyWidening } from './key-widening.js';
import { scopeExcessField } from './scope-subset.js';

/** Who is calling, as the authenticator established it from the caller's key. */
export interface CallerIdentity {
  user?: string;
  team?: string;
  subject?: string;
  /** The key's `spec.groups`. */
  groups: string[];
  /** Whether the caller administers every key (the bootstrap admin key). */
  admin: boolean;
  /** The caller key's scope; absent means unrestricted. */
  scope?: AccessScope;
}

/** The fields of an OwnedAccessKey's spec that ownership and escalation look at. */
export interface KeyOwnership {
  user?: string;
  team?: string;
  subject?: string;
  groups?: string[];
  scope?: AccessScope;
}

const OWNER_FIELDS = ['user', 'team', 'subject'] as const;

const ALLOWED: AuthorizationDecision = { allowed: true };

function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/** The caller as a reason names it: `user "alice"`, `team "ops"`, or `a caller without user, team or subject`. */
function callerName(caller: CallerIdentity): string {
  const named = OWNER_FIELDS.filter((field) => present(caller[field])).map((field) => `${field} "${caller[field] ?? ''}"`);
  return named.length === 0 ? 'a caller without user, team or subject' : named.join(', ');
}

/**
 * Whether `key` belongs to `caller`: it names at least one owner (user, team or subject) and
 * every owner it names is the caller's own (a key for user "alice" of team "ops" belongs only to
 * a caller who is both).
 */
export function ownsKey(caller: CallerIdentity, key: KeyOwnership): boolean {
  const named = OWNER_FIELDS.filter((field) => present(key[field]));
  return named.length > 0 && named.every((field) => caller[field] === key[field]);
}

/** The keys of `items` the caller may see: all for an admin, its own otherwise (list and watch results). */
export function filterOwnedKeys<T extends { spec?: KeyOwnership }>(caller: CallerIdentity, items: readonly T[]): T[] {
  return caller.admin ? [...items] : items.filter((item) => ownsKey(caller, item.spec ?? {}));
}

/** The verbs that address a collection; their results (or the keys they delete) are filtered with {@link filterOwnedKeys}. */
const COLLECTION_VERBS = ['list', 'watch', 'deletecollection'];

/**
 * Whether the caller may use `verb` on `targetKey` (the stored key for get/update/patch/delete,
 * the requested key for create). Admins may do anything. Collection verbs without a target are
 * allowed, their results filtered to the caller's own keys ({@link filterOwnedKeys}). A refusal's
 * reason does not name the key's owner; the server may answer it as NotFound so that other
 * owners' key names do not leak.
 */
export function authorizeOwnership(caller: CallerIdentity, verb: string, targetKey?: KeyOwnership): AuthorizationDecision {
  if (caller.admin) return ALLOWED;
  if (targetKey === undefined) {
    if (COLLECTION_VERBS.includes(verb)) return ALLOWED;
    return { allowed: false, reason: `${verb} needs the access key it is about; only an admin may ${verb} without one` };
  }
  if (ownsKey(caller, targetKey)) return ALLOWED;
  return { allowed: false, reason: `the access key does not belong to the caller (${callerName(caller)}); a caller sees and changes only its own keys unless it is an admin` };
}

/**
 * Whether the caller may create `requested`, or update `previous` into it, without escalating:
 * it must belong to the caller (admins may create keys for anyone); its groups must be among the
 * caller's (admins: any); and its scope must stay within the caller's scope (`scopeExcess`; this
 * applies to admins too, so that a scoped admin key cannot mint an unrestricted one). On update,
 * groups the key already had and an unchanged scope are not escalation, so an owner can still
 * edit a key an admin gave more reach, unless the update widens the key (`widened`, from
 * `keyWidenings`: a new key value, enabling, a longer life, more scope or groups, another owner):
 * then the result must pass as a create would, as if the caller made it anew. Refusals name the
 * offending field under `spec`.
 */
export function checkEscalation(caller: CallerIdentity, requested: KeyOwnership, previous?: KeyOwnership, widened: readonly KeyWidening[] = []): AuthorizationDecision {
  if (previous !== undefined && widened.length > 0) {
    const asCreated = checkEscalation(caller, requested);
    if (asCreated.allowed) return ALLOWED;
    const what = widened.map((widening) => `${widening.field}: ${widening.why}`).join('; ');
    return {
      allowed: false,
      reason: `${what}. A write that widens a key is allowed only when the caller could have created the resulting key itself, and it could not: ${asCreated.reason}. Leave these fields as they are, or ask an admin to make the change`,
    };
  }
  if (!caller.admin) {
    if (!ownsKey(caller, requested)) {
      const suggestion = OWNER_FIELDS.filter((field) => present(caller[field])).map((field) => `spec.${field}: ${JSON.stringify(caller[field])}`);
      const fix = suggestion.length === 0 ? 'only an admin may create keys for a caller without an identity' : `set ${suggestion.join(', ')} and no other owner`;
      return { allowed: false, reason: `spec.user/spec.team/spec.subject: a caller (${callerName(caller)}) may create and change keys only for itself: ${fix}` };
    }
    const had = previous?.groups ?? [];
    const extra = (requested.groups ?? []).filter((group) => !caller.groups.includes(group) && !had.includes(group));
    if (extra.length > 0) {
      return { allowed: false, reason: `spec.groups: ${extra.map((group) => JSON.stringify(group)).join(', ')} not among the caller's groups; a key may carry only groups its creator has` };
    }
  }
  if (previous !== undefined && isDeepStrictEqual(previous.scope, requested.scope)) return ALLOWED;
  const excess = scopeExcessField(caller.scope, requested.scope);
  if (excess === undefined) return ALLOWED;
  return { allowed: false, reason: `${excess.field}: ${excess.what} exceeds the caller's own scope; a key may reach only what its creator's key reaches (README, "Access-key scope")` };
}

/** The keys an OwnedAccessKey request is about: the stored one (get, update, patch, delete) and the one written (create, update, patch). */
export interface KeyRequestObjects {
  stored?: KeyOwnership;
  proposed?: KeyOwnership;
  /** How the update or patch widens the stored key (`keyWidenings`); none when absent. */
  widened?: readonly KeyWidening[];
}

/**
 * Ownership and escalation for one OwnedAccessKey request, in one call: get/delete need the
 * stored key to be the caller's; create needs the proposed key to pass {@link checkEscalation};
 * update/patch need both (the stored key the caller's, the result no escalation beyond it; a
 * widening one, a result the caller could have created).
 * list/watch/deletecollection are allowed, their results filtered with {@link filterOwnedKeys}.
 */
export function authorizeKeyRequest(caller: CallerIdentity, verb: string, keys: KeyRequestObjects = {}): AuthorizationDecision {
  if (verb === 'create' || verb === 'update' || verb === 'patch') {
    if (keys.proposed === undefined) return { allowed: false, reason: `${verb} needs the access key it writes` };
    if (verb !== 'create') {
      const owner = authorizeOwnership(caller, verb, keys.stored);
      if (!owner.allowed) return owner;
    }
    return verb === 'create' ? checkEscalation(caller, keys.proposed) : checkEscalation(caller, keys.proposed, keys.stored, keys.widened);
  }
  return authorizeOwnership(caller, verb, keys.stored);
}
