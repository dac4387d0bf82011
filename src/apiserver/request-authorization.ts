import { ApiError, forbidden, type JsonObject } from '../apimachinery/index.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { OwnerFinalizersCheck, ReferencedOwner } from './owner-reference-permission.js';
import type { ResourceRequest } from './request-info.js';
import type { StoredObject } from './storage.js';

/** One non-resource rule: the verbs (lower-case methods) allowed on the URL patterns (`/a`, `/a/*`, `*`). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/**
 * What an authorizer tells a rules review beyond what asking it about each served resource finds:
 * its non-resource rules, and whether it also allows requests that asking about whole collections
 * does not find (grants of single objects by name, of projects), so the list is `incomplete`.
 */
export interface RulesDescription {
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
}

/**
 * What an authorizer decides about one resource request: refused (403 with `reason`), or allowed,
 * optionally restricted to the objects `visible` accepts (ownership: a caller sees only its own).
 */
export type AccessDecision =
  | {
      allowed: true;
      visible?: (object: StoredObject | JsonObject) => boolean;
      /**
       * Why the object a write would store is refused (403), or undefined to admit it, e.g. an
       * escalation; `old` is the stored object on update.
       */
      refuseWrite?: (object: JsonObject, old: JsonObject | undefined) => string | undefined;
    }
  | { allowed: false; reason: string };

/**
 * Decides what an authenticated user may do on a server on the core, like k8s.io/apiserver's
 * authorizer, plus the objects it may see. `path` is the request's path under the base path.
 * Non-resource requests (discovery, OpenAPI, version) are asked about only when
 * `authorizeNonResource` is given; otherwise every authenticated user may read them. The
 * unauthenticated health paths are never asked about.
 */
export interface RequestAuthorizer {
  authorize(user: AuthenticatedUser, request: ResourceRequest, path: string): AccessDecision | Promise<AccessDecision>;
  /** Whether `user` may send `method` (upper case, as received) to the non-resource `path`. */
  authorizeNonResource?(user: AuthenticatedUser, method: string, path: string): NonResourceDecision | Promise<NonResourceDecision>;
  /**
   * Whether `user` may update the finalizers of `owner` (verb `update`, subresource `finalizers`),
   * asked for every owner reference a write newly sets `blockOwnerDeletion: true` on, as the real
   * server's OwnerReferencesPermissionEnforcement asks its authorizer. When absent nobody is asked
   * and every such reference is admitted (the devcluster, which has no authorization).
   */
  authorizeOwnerFinalizers?(user: AuthenticatedUser, owner: ReferencedOwner): NonResourceDecision | Promise<NonResourceDecision>;
  /**
   * For `kubectl auth can-i --list` (SelfSubjectRulesReview): `user`'s non-resource rules, and
   * whether it is allowed more than asking {@link authorize} about every served collection finds.
   * When absent the review lists no non-resource rules (or all, without `authorizeNonResource`)
   * and says it is incomplete.
   */
  describeRules?(user: AuthenticatedUser): RulesDescription;
}

/** What an authorizer decides about a non-resource request: allowed, or refused (403 with `reason`). */
export type NonResourceDecision = { allowed: true } | { allowed: false; reason: string };

/**
 * How the REST handlers apply an allowed decision: objects the user may not see are left out of
 * lists and watches, answer 404 to get, update, patch and delete, and may not be written (403).
 */
export interface RequestAccess {
  /** Whether the user may see `object`. */
  visible(object: StoredObject | JsonObject): boolean;
  /** Why the user may not store `object` (403; `old` is the stored one on update), or undefined. */
  refuseWrite(object: JsonObject, old: JsonObject | undefined): string | undefined;
  /** Whether the user may block the deletion of an owner (see `authorizeOwnerFinalizers`); absent: it may. */
  mayUpdateFinalizers?: OwnerFinalizersCheck;
}

/** Asks `authorizer` about `request`; throws a 403 {@link ApiError} when it is refused. */
export async function authorizeRequest(authorizer: RequestAuthorizer, user: AuthenticatedUser, request: ResourceRequest, path: string): Promise<RequestAccess | undefined> {
  const decision = await authorizer.authorize(user, request, path);
  if (!decision.allowed) {
    const what = `${request.verb} ${request.type.plural}${request.type.group !== '' ? `.${request.type.group}` : ''}${request.name !== '' ? ` ${JSON.stringify(request.name)}` : ''}`;
    throw forbidden(`${JSON.stringify(user.username)} may not ${what}: ${decision.reason}`, { name: request.name, group: request.type.group, kind: request.type.plural });
  }
  const askOwners = authorizer.authorizeOwnerFinalizers?.bind(authorizer);
  if (decision.visible === undefined && decision.refuseWrite === undefined && askOwners === undefined) return undefined;
  const access: RequestAccess = { visible: decision.visible ?? ((): boolean => true), refuseWrite: decision.refuseWrite ?? ((): undefined => undefined) };
  if (askOwners !== undefined) {
    access.mayUpdateFinalizers = async (owner) => {
      const answer = await askOwners(user, owner);
      return answer.allowed ? undefined : answer.reason;
    };
  }
  return access;
}

/** Asks `authorizer` about the non-resource request `method path` when it decides those; throws a 403 {@link ApiError} when it is refused. */
export async function authorizeNonResourceRequest(authorizer: RequestAuthorizer, user: AuthenticatedUser, method: string, path: string): Promise<void> {
  if (authorizer.authorizeNonResource === undefined) return;
  const decision = await authorizer.authorizeNonResource(user, method, path);
  if (!decision.allowed) throw forbidden(`${JSON.stringify(user.username)} may not ${method.toLowerCase()} ${path}: ${decision.reason}`);
}

/** Whether `path` addresses resources (`/api/<version>/...`, `/apis/<group>/<version>/...`) rather than discovery, OpenAPI or version. */
export function isResourcePath(path: string): boolean {
  const parts = path.split('/').filter((part) => part !== '');
  return (parts[0] === 'api' && parts.length >= 3) || (parts[0] === 'apis' && parts.length >= 4);
}

/** The 403 of a write whose result the user could not see (it would give the object away). */
export function invisibleResult(request: { plural: string; group: string }, name: string): ApiError {
  return forbidden(`the ${request.plural} ${JSON.stringify(name)} would belong to someone else after this write: a caller may only write objects it may see`, {
    name,
    group: request.group,
    kind: request.plural,
  });
}
