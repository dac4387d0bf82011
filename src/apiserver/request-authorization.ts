import { ApiError, forbidden } from './api-error.js';
import type { JsonObject } from './kind-strategy.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { ResourceRequest } from './request-info.js';
import type { StoredObject } from './storage.js';

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
 * authorizer, plus the objects it may see. Non-resource requests (discovery, OpenAPI, version,
 * health) are not asked about: every authenticated user may read them.
 */
export interface RequestAuthorizer {
  authorize(user: AuthenticatedUser, request: ResourceRequest): AccessDecision | Promise<AccessDecision>;
}

/**
 * How the REST handlers apply an allowed decision: objects the user may not see are left out of
 * lists and watches, answer 404 to get, update, patch and delete, and may not be written (403).
 */
export interface RequestAccess {
  /** Whether the user may see `object`. */
  visible(object: StoredObject | JsonObject): boolean;
  /** Why the user may not store `object` (403; `old` is the stored one on update), or undefined. */
  refuseWrite(object: JsonObject, old: JsonObject | undefined): string | undefined;
}

/** Asks `authorizer` about `request`; throws a 403 {@link ApiError} when it is refused. */
export async function authorizeRequest(authorizer: RequestAuthorizer, user: AuthenticatedUser, request: ResourceRequest): Promise<RequestAccess | undefined> {
  const decision = await authorizer.authorize(user, request);
  if (!decision.allowed) {
    const what = `${request.verb} ${request.type.plural}${request.type.group !== '' ? `.${request.type.group}` : ''}${request.name !== '' ? ` ${JSON.stringify(request.name)}` : ''}`;
    throw forbidden(`${JSON.stringify(user.username)} may not ${what}: ${decision.reason}`, { name: request.name, group: request.type.group, kind: request.type.plural });
  }
  if (decision.visible === undefined && decision.refuseWrite === undefined) return undefined;
  return { visible: decision.visible ?? ((): boolean => true), refuseWrite: decision.refuseWrite ?? ((): undefined => undefined) };
}

/** The 403 of a write whose result the user could not see (it would give the object away). */
export function invisibleResult(request: { plural: string; group: string }, name: string): ApiError {
  return forbidden(`the ${request.plural} ${JSON.stringify(name)} would belong to someone else after this write: a caller may only write objects it may see`, {
    name,
    group: request.group,
    kind: request.plural,
  });
}
