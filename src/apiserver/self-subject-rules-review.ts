/**
 * SelfSubjectRulesReview (authorization.k8s.io/v1), what `kubectl auth can-i --list` asks: the
 * rules of what the caller may do in one namespace. The resource rules come from the server's
 * authorizer, asked about every verb of every resource the server serves (and the status
 * subresource and actions); what that cannot find (non-resource rules, grants by object name) the
 * authorizer describes itself ({@link RulesDescription}). A server without an authorizer allows
 * everything, and says so as the real server's AlwaysAllow authorizer does.
 */
import { ApiError, badRequest, isJsonObject } from '../apimachinery/index.js';
import { message, OBJECT_META, type MessageSchema } from './protobuf-message-schema.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { AccessDecision, RequestAuthorizer, RulesDescription } from './request-authorization.js';
import type { RequestVerb, ResourceRequest } from './request-info.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';

/** The path of SelfSubjectRulesReview creation. */
export const SELF_SUBJECT_RULES_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

/** One resource rule: the verbs allowed on the resources (`plural` or `plural/subresource`) of the groups. */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

const RULES_REVIEW_STATUS = message('SubjectRulesReviewStatus', {
  1: {
    json: 'resourceRules',
    repeated: true,
    type: message('ResourceRule', {
      1: { json: 'verbs', type: 'string', repeated: true },
      2: { json: 'apiGroups', type: 'string', repeated: true },
      3: { json: 'resources', type: 'string', repeated: true },
      4: { json: 'resourceNames', type: 'string', repeated: true },
    }),
  },
  2: { json: 'nonResourceRules', repeated: true, type: message('NonResourceRule', { 1: { json: 'verbs', type: 'string', repeated: true }, 2: { json: 'nonResourceURLs', type: 'string', repeated: true } }) },
  3: { json: 'incomplete', type: 'bool' },
  4: { json: 'evaluationError', type: 'string' },
});

/** The protobuf schema of the review, by `<apiVersion>/<kind>` (kubectl sends it as protobuf). */
export const SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND: readonly [string, MessageSchema] = [
  'authorization.k8s.io/v1/SelfSubjectRulesReview',
  message('SelfSubjectRulesReview', {
    1: { json: 'metadata', type: OBJECT_META },
    2: { json: 'spec', type: message('SelfSubjectRulesReviewSpec', { 1: { json: 'namespace', type: 'string' } }) },
    3: { json: 'status', type: RULES_REVIEW_STATUS },
  }),
];

/** What a rules review is decided with. */
export interface RulesReviewContext {
  /** The request's user; undefined on a server without authentication. */
  user: AuthenticatedUser | undefined;
  /** The server's authorizer; undefined: everything is allowed. */
  authorizer: RequestAuthorizer | undefined;
  registry: ResourceRegistry;
}

const EVERYTHING: RulesDescription & { resourceRules: ResourceRule[] } = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

function resourcePath(type: ResourceType, namespace: string, subresource: string | undefined): string {
  const parts = [type.group === '' ? '/api' : `/apis/${type.group}`, type.version];
  if (type.namespaced && namespace !== '') parts.push('namespaces', namespace);
  parts.push(type.plural);
  // A subresource path names an object; the collection-wide question has none, so `*` stands in.
  if (subresource !== undefined) parts.push('*', subresource);
  return parts.join('/');
}

async function allows(authorizer: RequestAuthorizer, user: AuthenticatedUser, request: ResourceRequest): Promise<boolean> {
  let decision: AccessDecision;
  try {
    decision = await authorizer.authorize(user, request, resourcePath(request.type, request.namespace, request.subresource));
  } catch (error: unknown) {
    // An authorizer's refusal may be thrown as a 403 (the management scope rules do).
    if (error instanceof ApiError && error.reason === 'Forbidden') return false;
    throw error;
  }
  return decision.allowed;
}

/** The verbs `user` may use on `type` (or its `subresource`) in `namespace`, as one rule, or undefined for none. */
async function ruleOf(type: ResourceType, subresource: string | undefined, verbs: readonly RequestVerb[], namespace: string, context: { user: AuthenticatedUser; authorizer: RequestAuthorizer }): Promise<ResourceRule | undefined> {
  const allowed: string[] = [];
  for (const verb of verbs) {
    const request: ResourceRequest = { type, namespace: type.namespaced ? namespace : '', name: '', subresource, verb };
    if (await allows(context.authorizer, context.user, request)) allowed.push(verb);
  }
  if (allowed.length === 0) return undefined;
  return { verbs: allowed, apiGroups: [type.group], resources: [subresource === undefined ? type.plural : `${type.plural}/${subresource}`] };
}

async function resourceRules(namespace: string, registry: ResourceRegistry, context: { user: AuthenticatedUser; authorizer: RequestAuthorizer }): Promise<ResourceRule[]> {
  const rules: Array<ResourceRule | undefined> = [];
  for (const type of registry.types) {
    rules.push(await ruleOf(type, undefined, type.verbs, namespace, context));
    if (type.subresources.includes('status')) rules.push(await ruleOf(type, 'status', ['get', 'update', 'patch'], namespace, context));
    for (const action of type.actions.keys()) rules.push(await ruleOf(type, action, ['create'], namespace, context));
  }
  return rules.filter((rule): rule is ResourceRule => rule !== undefined);
}

/**
 * The answer to the SelfSubjectRulesReview `body` (JSON, or decoded from protobuf): the
 * caller's rules in `spec.namespace`, with an empty spec as the real server answers. Throws a 400 when the spec names no
 * namespace, as the real server does.
 */
export async function selfSubjectRulesReview(body: unknown, context: RulesReviewContext): Promise<Record<string, unknown>> {
  const spec = isJsonObject(body) && isJsonObject(body['spec']) ? body['spec'] : {};
  const namespace = spec['namespace'];
  if (typeof namespace !== 'string' || namespace === '') throw badRequest('SelfSubjectRulesReview spec.namespace: no namespace on request; name the namespace whose rules to list');
  const answer = (status: RulesDescription & { resourceRules: ResourceRule[] }): Record<string, unknown> => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: {},
    // The real server does not echo the spec either.
    spec: {},
    status,
  });
  const { user, authorizer } = context;
  if (user === undefined || authorizer === undefined) return answer(EVERYTHING);
  const rules = await resourceRules(namespace, context.registry, { user, authorizer });
  // Without authorizeNonResource every authenticated user may read every non-resource path.
  const described = authorizer.describeRules?.(user) ?? { nonResourceRules: authorizer.authorizeNonResource === undefined ? EVERYTHING.nonResourceRules : [], incomplete: true };
  return answer({ resourceRules: rules, ...described });
}
