/**
 * The two "who am I / may I" reviews kubectl asks for (`kubectl auth whoami`, `kubectl auth
 * can-i`). A server on the core authenticates but does not authorize: every authenticated request
 * is allowed, and the answers say so instead of the 404 a client would otherwise get.
 */

/** The path of SelfSubjectAccessReview creation. */
export const SELF_SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
/** The path of SelfSubjectReview creation. */
export const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** The user a request authenticated as; without authentication, the anonymous user. */
export interface ReviewUser {
  username: string;
  groups: string[];
}

/** The user of a request to a server that runs without authentication. */
export const ANONYMOUS: ReviewUser = Object.freeze({ username: 'system:anonymous', groups: ['system:unauthenticated'] });

/**
 * A SelfSubjectAccessReview answer: allowed, whatever was asked. The request's spec is not echoed:
 * kubectl may send it as protobuf, and the answer only needs the decision. `reason` says why
 * everything is allowed (the server names itself there).
 */
export function selfSubjectAccessReview(reason: string): Record<string, unknown> {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: {},
    status: { allowed: true, reason },
  };
}

/** A SelfSubjectReview answer for `user`. */
export function selfSubjectReview(user: ReviewUser): Record<string, unknown> {
  const groups = user.username === ANONYMOUS.username ? user.groups : [...new Set([...user.groups, 'system:authenticated'])];
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: {},
    status: { userInfo: { username: user.username, groups } },
  };
}
