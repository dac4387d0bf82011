/**
 * The `authentication.k8s.io` TokenReview webhook: what a kube-apiserver configured
 * with `--authentication-token-webhook-config-file` sends, and what it reads back.
 */
import { badRequest, isJsonObject, type JsonObject } from '../apimachinery/index.js';
import type { TokenVerifier } from './token-verifier.js';

/** The TokenReview versions answered (a kube-apiserver's `--authentication-token-webhook-version`); the answer uses the request's. */
export const TOKEN_REVIEW_API_VERSIONS: readonly string[] = ['authentication.k8s.io/v1', 'authentication.k8s.io/v1beta1'];

const EXPECTED = `a TokenReview (apiVersion ${TOKEN_REVIEW_API_VERSIONS.join(' or ')}, kind TokenReview, spec.token)`;

/**
 * Answers one TokenReview request body: `status.authenticated` with `status.user` (username,
 * groups, extra) when `verifier` accepts `spec.token`, and `status.audiences` when `spec.audiences`
 * was given (the token's own audiences when it is bound to some, else the requested ones: an
 * access key is valid for any audience); otherwise `authenticated: false` with an `error` that says
 * why without the token. The answer never echoes the token. Throws a 400 {@link ApiError} for a
 * body that is not a TokenReview.
 */
export async function reviewToken(verifier: TokenVerifier, body: unknown): Promise<JsonObject> {
  if (!isJsonObject(body)) throw badRequest(`the body must be ${EXPECTED}`);
  const apiVersion = body['apiVersion'];
  if (typeof apiVersion !== 'string' || !TOKEN_REVIEW_API_VERSIONS.includes(apiVersion) || body['kind'] !== 'TokenReview') {
    throw badRequest(`the body must be ${EXPECTED}, got apiVersion ${JSON.stringify(apiVersion)}, kind ${JSON.stringify(body['kind'])}`);
  }
  const spec = isJsonObject(body['spec']) ? body['spec'] : {};
  const token = spec['token'];
  if (typeof token !== 'string' || token === '') throw badRequest('spec.token is required for a TokenReview');
  const requested = spec['audiences'];
  if (requested !== undefined && requested !== null && !(Array.isArray(requested) && requested.every((audience) => typeof audience === 'string'))) {
    throw badRequest('spec.audiences must be a list of strings');
  }
  const audiences = Array.isArray(requested) ? (requested as string[]) : [];
  const verification = await verifier.verifyToken({ token, audiences });
  const answer = (status: JsonObject): JsonObject => ({
    apiVersion,
    kind: 'TokenReview',
    metadata: { creationTimestamp: null },
    spec: audiences.length > 0 ? { audiences } : {},
    status,
  });
  if (verification.outcome !== 'authenticated') {
    return answer({ authenticated: false, error: verification.outcome === 'refused' ? verification.error : 'the token was not recognized' });
  }
  const { user } = verification;
  const granted = verification.audiences ?? audiences;
  return answer({
    authenticated: true,
    user: { username: user.username, groups: [...user.groups], ...(user.extra !== undefined ? { extra: Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]])) } : {}) },
    ...(audiences.length > 0 ? { audiences: [...granted] } : {}),
  });
}
