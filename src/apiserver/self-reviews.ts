/**
 * The two "who am I / may I" reviews kubectl asks for (`kubectl auth whoami`, `kubectl auth
 * can-i`). A server with an authorizer answers a SelfSubjectAccessReview with that authorizer's
 * decision on the attributes of the spec; a server without one allows every authenticated
 * request, and its answers say so instead of the 404 a client would otherwise get.
 */
import { ApiError, badRequest, isJsonObject, type JsonObject } from '../apimachinery/index.js';
import { message, OBJECT_META, type MessageSchema } from './protobuf-message-schema.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { RequestAuthorizer } from './request-authorization.js';
import type { RequestVerb, ResourceRequest } from './request-info.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';
import type { ObjectRef, StoredObject } from './storage.js';

/** The path of SelfSubjectAccessReview creation. */
export const SELF_SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
/** The path of SelfSubjectReview creation. */
export const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** The user a request authenticated as; without authentication, the anonymous user. */
export interface ReviewUser {
  username: string;
  groups: string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** The user of a request to a server that runs without authentication. */
export const ANONYMOUS: ReviewUser = Object.freeze({ username: 'system:anonymous', groups: ['system:unauthenticated'] });

const SELECTOR_ATTRIBUTES = (name: string): MessageSchema => message(name, { 1: { json: 'rawSelector', type: 'string' } });

/** authorization/v1 ResourceAttributes, without the parsed selector `requirements` (kubectl sends none). */
const RESOURCE_ATTRIBUTES = message('ResourceAttributes', {
  1: { json: 'namespace', type: 'string' },
  2: { json: 'verb', type: 'string' },
  3: { json: 'group', type: 'string' },
  4: { json: 'version', type: 'string' },
  5: { json: 'resource', type: 'string' },
  6: { json: 'subresource', type: 'string' },
  7: { json: 'name', type: 'string' },
  8: { json: 'fieldSelector', type: SELECTOR_ATTRIBUTES('FieldSelectorAttributes'), pointer: true },
  9: { json: 'labelSelector', type: SELECTOR_ATTRIBUTES('LabelSelectorAttributes'), pointer: true },
});

const SELF_SUBJECT_ACCESS_REVIEW = message('SelfSubjectAccessReview', {
  1: { json: 'metadata', type: OBJECT_META },
  2: {
    json: 'spec',
    type: message('SelfSubjectAccessReviewSpec', {
      1: { json: 'resourceAttributes', type: RESOURCE_ATTRIBUTES, pointer: true },
      2: { json: 'nonResourceAttributes', type: message('NonResourceAttributes', { 1: { json: 'path', type: 'string' }, 2: { json: 'verb', type: 'string' } }), pointer: true },
    }),
  },
  3: {
    json: 'status',
    type: message('SubjectAccessReviewStatus', {
      1: { json: 'allowed', type: 'bool' },
      2: { json: 'reason', type: 'string' },
      3: { json: 'evaluationError', type: 'string' },
      4: { json: 'denied', type: 'bool' },
    }),
  },
});

const SELF_SUBJECT_REVIEW = message('SelfSubjectReview', {
  1: { json: 'metadata', type: OBJECT_META },
  2: {
    json: 'status',
    type: message('SelfSubjectReviewStatus', {
      1: { json: 'userInfo', type: message('UserInfo', { 1: { json: 'username', type: 'string' }, 2: { json: 'uid', type: 'string' }, 3: { json: 'groups', type: 'string', repeated: true } }) },
    }),
  },
});

/** The protobuf schemas of the two reviews (kubectl sends them as protobuf), by `<apiVersion>/<kind>`. */
export const SELF_REVIEW_PROTOBUF_KINDS: ReadonlyMap<string, MessageSchema> = new Map([
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', SELF_SUBJECT_ACCESS_REVIEW],
  ['authentication.k8s.io/v1/SelfSubjectReview', SELF_SUBJECT_REVIEW],
]);

/** What a SelfSubjectAccessReview is decided with. */
export interface SelfAccessReviewContext {
  /** The request's user; undefined on a server without authentication. */
  user: AuthenticatedUser | undefined;
  /** The server's authorizer; undefined: everything is allowed, for `noAuthorizerReason`. */
  authorizer: RequestAuthorizer | undefined;
  noAuthorizerReason: string;
  registry: ResourceRegistry;
  /** The stored object a named review is about, to tell whether the user may see it. */
  lookup: (ref: ObjectRef) => Promise<StoredObject | undefined>;
}

type Verdict = { allowed: boolean; denied?: boolean; reason?: string };

const REQUEST_VERBS: readonly RequestVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

function stringOf(attributes: JsonObject, field: string): string {
  const value = attributes[field];
  return typeof value === 'string' ? value : '';
}

function refused(reason: string): Verdict {
  return { allowed: false, denied: true, reason };
}

/** An authorizer's refusal may be thrown as a 403 (the management scope rules do): a refusal either way. */
async function decided<T>(decide: () => T | Promise<T>): Promise<T | Verdict> {
  try {
    return await decide();
  } catch (error: unknown) {
    if (error instanceof ApiError && error.reason === 'Forbidden') return refused(error.message);
    throw error;
  }
}

function resourcePath(type: ResourceType, namespace: string, name: string, subresource: string): string {
  const parts = [type.group === '' ? '/api' : `/apis/${type.group}`, type.version];
  if (type.namespaced && namespace !== '') parts.push('namespaces', namespace);
  parts.push(type.plural);
  if (name !== '') parts.push(name);
  if (subresource !== '') parts.push(subresource);
  return parts.join('/');
}

async function reviewResource(attributes: JsonObject, user: AuthenticatedUser, authorizer: RequestAuthorizer, context: SelfAccessReviewContext): Promise<Verdict> {
  const [group, version, plural, verb, namespace, name, subresource] = ['group', 'version', 'resource', 'verb', 'namespace', 'name', 'subresource'].map((field) => stringOf(attributes, field)) as [string, string, string, string, string, string, string];
  const type = context.registry.types.find((candidate) => candidate.group === group && candidate.plural === plural && (version === '' || version === '*' || candidate.version === version));
  const what = `${plural}${group !== '' ? `.${group}` : ''}`;
  if (type === undefined) return refused(`the server does not serve ${what}`);
  if (!(REQUEST_VERBS as readonly string[]).includes(verb) || !(type.verbs as readonly string[]).includes(verb)) return refused(`the server does not serve the verb ${JSON.stringify(verb)} on ${what}`);
  if (subresource !== '' && !(subresource === 'status' && type.subresources.includes('status'))) return refused(`the server does not serve ${what}/${subresource}`);
  const request: ResourceRequest = { type, namespace: type.namespaced ? namespace : '', name, subresource: subresource === 'status' ? 'status' : undefined, verb: verb as RequestVerb };
  const decision = await decided(() => authorizer.authorize(user, request, resourcePath(type, request.namespace, name, subresource)));
  if (!decision.allowed) return refused(decision.reason ?? 'refused');
  if (!('visible' in decision) || decision.visible === undefined) return { allowed: true };
  // Allowed on the objects the user may see: a named one must be one of them. A create is about the
  // object it writes, which is checked when written, not about one stored under that name.
  if (name === '' || verb === 'create') return { allowed: true, reason: `allowed on the ${what} ${user.username} may see` };
  const object = await context.lookup({ resource: type.id, namespace: request.namespace, name });
  if (object !== undefined && decision.visible(object)) return { allowed: true };
  // One answer for an object the user may not see and one that does not exist: the review must not
  // tell whether another owner's object of that name exists (the request itself answers 404 to both).
  return refused(`${JSON.stringify(name)} is not one of the ${what} ${user.username} may see (or does not exist)`);
}

async function reviewNonResource(attributes: JsonObject, user: AuthenticatedUser, authorizer: RequestAuthorizer): Promise<Verdict> {
  const path = stringOf(attributes, 'path');
  const method = stringOf(attributes, 'verb').toUpperCase();
  if (authorizer.authorizeNonResource === undefined) return { allowed: true };
  const decision = await decided(() => (authorizer.authorizeNonResource as NonNullable<RequestAuthorizer['authorizeNonResource']>)(user, method, path));
  return decision.allowed ? { allowed: true } : refused(decision.reason ?? 'refused');
}

/**
 * The answer to the SelfSubjectAccessReview `body` (JSON, or decoded from protobuf): its spec
 * echoed, and a status from the server's authorizer on the spec's resourceAttributes (a resource
 * the server does not serve is refused; a named object must be one the user may see, and one it
 * may not see is answered as one that does not exist) or
 * nonResourceAttributes; `denied` when the authorizer refuses, as it is the only one. Without an
 * authorizer every request is allowed. Throws a 400 for a body that asks nothing.
 */
export async function selfSubjectAccessReview(body: unknown, context: SelfAccessReviewContext): Promise<Record<string, unknown>> {
  const spec = isJsonObject(body) && isJsonObject(body['spec']) ? body['spec'] : undefined;
  const answer = (status: Verdict): Record<string, unknown> => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: spec ?? {},
    status,
  });
  if (context.authorizer === undefined || context.user === undefined) return answer({ allowed: true, reason: context.noAuthorizerReason });
  const resource = spec !== undefined && isJsonObject(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
  const nonResource = spec !== undefined && isJsonObject(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : undefined;
  if ((resource === undefined) === (nonResource === undefined)) {
    throw badRequest('SelfSubjectAccessReview spec: exactly one of resourceAttributes or nonResourceAttributes must be specified');
  }
  const verdict = resource !== undefined ? await reviewResource(resource, context.user, context.authorizer, context) : await reviewNonResource(nonResource as JsonObject, context.user, context.authorizer);
  return answer(verdict);
}

/** A SelfSubjectReview answer for `user`: its name, groups and `extra` (`kubectl auth whoami` shows each). */
export function selfSubjectReview(user: ReviewUser): Record<string, unknown> {
  const groups = user.username === ANONYMOUS.username ? user.groups : [...new Set([...user.groups, 'system:authenticated'])];
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: {},
    status: { userInfo: { username: user.username, groups, ...(user.extra !== undefined && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}) } },
  };
}
