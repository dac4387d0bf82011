/**
 * DirectClusterEndpointTokens: short-lived signed JWTs a caller obtains
 * with its access key and presents to a cluster endpoint directly. Issued with the key ring's
 * current key; verified offline by anyone with the published key set, and by token review here,
 * which also refuses tokens whose access key was since disabled, deleted or narrowed.
 */
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { forbidden, isJsonObject, type JsonObject } from '../apimachinery/index.js';
import type { AuthenticatedUser, ProcedureRequest } from '../apiserver/index.js';
import type { AccessScope } from './access-scope.js';
import type { AccessKeyAuthenticator } from './access-key-authenticator.js';
import { signCompactJws } from './compact-jws.js';
import { SIGNING_ALGORITHMS } from './key-rotation.js';
import { ACCESS_KEY_EXTRA, ACCESS_KEY_UID_EXTRA, DIRECT_TOKEN_DEFAULT_TTL_SECONDS, DIRECT_TOKEN_MAX_TTL_SECONDS, KEY_SCOPE_EXTRA } from './management-constants.js';
import { callerScope } from './ownership-authorizer.js';
import { scopeExcess, scopeExcessField } from './scope-subset.js';
import type { SigningKeyRing } from './signing-keys.js';
import type { TokenReviewRequest, TokenVerification, TokenVerifier } from './token-verifier.js';

/** The private claim of a direct token, under the key `management.<platform>.sh`. */
export interface DirectTokenClaim {
  kind: 'DirectClusterEndpointToken';
  /** The OwnedAccessKey the token was issued with. */
  accessKey: { name: string; uid: string };
  /** What the token may reach: `spec.scope`, else the key's own; absent when unrestricted. */
  scope?: AccessScope;
}

/** Options of {@link DirectTokens}. */
export interface DirectTokensOptions {
  /** The keys of DirectClusterEndpointTokens. */
  ring: SigningKeyRing;
  /** The keys of the tokens in token kube configs; verified alike. Default `ring`. */
  kubeConfigRing?: SigningKeyRing;
  /** `iss`: the URL whose `/.well-known/openid-configuration` publishes the key set. */
  issuer: () => string;
  /** `aud` of every token. */
  audience: string;
  /** The name of the private claim, `management.<platform>.sh`. */
  claimName: string;
  /** Checks on every verification that the issuing key is still usable. */
  keys: Pick<AccessKeyAuthenticator, 'authenticateIssuer'>;
  /** Default {@link DIRECT_TOKEN_DEFAULT_TTL_SECONDS}. */
  defaultTtlSeconds?: number;
  /** Default {@link DIRECT_TOKEN_MAX_TTL_SECONDS}. */
  maxTtlSeconds?: number;
  /** Wall clock in ms since the epoch. */
  now: () => number;
}

/** A verified token: the user it stands for now (its key's), its scope and when it expires. */
export type DirectTokenVerification =
  | { ok: true; user: AuthenticatedUser; expiresAt: number }
  /** `ours`: whether the token names a signing key of this server (else it may be another issuer's). */
  | { ok: false; reason: string; message: string; ours: boolean };

/** Whether `token` has the shape of a compact JWS (three base64url parts); access keys never do. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/** The lifetime a token request gets, in seconds: the default when absent or 0, cut to the maximum. */
export function effectiveTtlSeconds(requested: unknown, defaultTtl: number, maxTtl: number): number {
  const ttl = typeof requested === 'number' && requested > 0 ? requested : defaultTtl;
  return Math.min(ttl, maxTtl);
}

function keyOfCaller(user: AuthenticatedUser): { name: string; uid: string } | undefined {
  const name = user.extra?.[ACCESS_KEY_EXTRA]?.[0];
  const uid = user.extra?.[ACCESS_KEY_UID_EXTRA]?.[0];
  return name !== undefined && uid !== undefined && uid !== '' ? { name, uid } : undefined;
}

/** Issues and verifies DirectClusterEndpointTokens; the token review asks it after the access keys. */
export class DirectTokens implements TokenVerifier {
  readonly #options: DirectTokensOptions;
  readonly #defaultTtl: number;
  readonly #maxTtl: number;

  /** Does no I/O. */
  constructor(options: DirectTokensOptions) {
    this.#options = options;
    this.#defaultTtl = options.defaultTtlSeconds ?? DIRECT_TOKEN_DEFAULT_TTL_SECONDS;
    this.#maxTtl = options.maxTtlSeconds ?? DIRECT_TOKEN_MAX_TTL_SECONDS;
  }

  /**
   * The create of a DirectClusterEndpointToken: the object back with `status.token` and the
   * effective `spec.ttl`. The caller must have authenticated with an access key (403 otherwise);
   * `spec.scope` must stay within the caller key's scope (403, naming the entry). A dry run
   * answers without a token.
   */
  async issue(request: ProcedureRequest): Promise<JsonObject> {
    const { object, user } = request;
    const key = user === undefined ? undefined : keyOfCaller(user);
    if (user === undefined || key === undefined) {
      throw forbidden('a DirectClusterEndpointToken is issued only to a caller that authenticated with an access key (Authorization: Bearer <key>)');
    }
    const spec = isJsonObject(object['spec']) ? object['spec'] : {};
    const own = callerScope(user);
    const requested = spec['scope'] === undefined || spec['scope'] === null ? own : (spec['scope'] as AccessScope);
    const excess = scopeExcessField(own, requested);
    if (excess !== undefined) {
      throw forbidden(`${excess.field}: ${excess.what} exceeds the scope of the access key the token is requested with; ask for less, or use a key that reaches it`, {
        name: '',
        group: '',
        kind: 'directclusterendpointtokens',
      });
    }
    const ttl = effectiveTtlSeconds(spec['ttl'], this.#defaultTtl, this.#maxTtl);
    const answer: JsonObject = { ...object, spec: { ...spec, ttl }, status: {} };
    if (request.dryRun) return answer;
    answer['status'] = { token: await this.#sign({ ring: this.#options.ring, user, key, scope: requested, ttlSeconds: ttl }) };
    return answer;
  }

  /**
   * A token for `user` (who authenticated with an access key) with the key's own scope, living
   * the maximum lifetime: the credential of a token-mode kube config. Throws a 403 when the
   * user did not authenticate with an access key.
   */
  async mintForKubeConfig(user: AuthenticatedUser): Promise<{ token: string; ttlSeconds: number }> {
    const key = keyOfCaller(user);
    if (key === undefined) throw forbidden('a kube config with a token is issued only to a caller that authenticated with an access key (Authorization: Bearer <key>)');
    const ring = this.#options.kubeConfigRing ?? this.#options.ring;
    return { token: await this.#sign({ ring, user, key, scope: callerScope(user), ttlSeconds: this.#maxTtl }), ttlSeconds: this.#maxTtl };
  }

  async #sign(token: { ring: SigningKeyRing; user: AuthenticatedUser; key: { name: string; uid: string }; scope: AccessScope | undefined; ttlSeconds: number }): Promise<string> {
    const { ring, user, key, scope, ttlSeconds } = token;
    const signing = await ring.signingKey();
    const issuedAt = Math.floor(this.#options.now() / 1000);
    const claim: DirectTokenClaim = { kind: 'DirectClusterEndpointToken', accessKey: key, ...(scope !== undefined ? { scope } : {}) };
    // system: groups are every authenticator's own (a kube-apiserver adds system:authenticated itself).
    const groups = user.groups.filter((group) => !group.startsWith('system:'));
    const payload = {
      groups,
      [this.#options.claimName]: claim,
      iss: this.#options.issuer(),
      sub: user.username,
      aud: this.#options.audience,
      iat: issuedAt,
      nbf: issuedAt,
      exp: issuedAt + ttlSeconds,
      jti: randomUUID(),
    };
    return signCompactJws({ alg: signing.alg, kid: signing.kid, typ: 'JWT' }, payload, signing.privateKey);
  }

  /**
   * The token review's view of {@link verify}: a token that is not a JWT of one of this server's
   * signing keys is `unrecognized` (another verifier may know it); one of ours that fails is
   * `refused` saying why (never the token). The token is
   * bound to this server's audience, which names every cluster that asks this webhook, so the
   * audiences a reviewing API server asks for are not compared: it is valid for any of them.
   */
  async verifyToken(request: TokenReviewRequest): Promise<TokenVerification> {
    const verified = await this.verify(request.token);
    if (verified.ok) return { outcome: 'authenticated', user: verified.user };
    return verified.ours ? { outcome: 'refused', error: verified.message } : { outcome: 'unrecognized' };
  }

  /**
   * Verifies `token` for token review: signature by an accepted key of the ring, issuer, audience,
   * lifetime; then its access key must still be usable and still reach the token's scope. The user
   * is the key's as it is now, with the token's scope.
   */
  async verify(token: string): Promise<DirectTokenVerification> {
    const refused = (reason: string, ours = true): DirectTokenVerification => ({ ok: false, reason, message: `the token is not valid: ${reason}`, ours });
    if (!looksLikeJwt(token)) return refused('not a JWT', false);
    let payload: JWTPayload;
    try {
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return refused('its header is not a JWS header', false);
      }
      if (kid === undefined) return refused('the token names no signing key (kid)', false);
      const verified = await jwtVerify(
        token,
        async () => {
          const { ring, kubeConfigRing } = this.#options;
          const found = (await ring.verificationKey(kid)) ?? (kubeConfigRing !== undefined && kubeConfigRing !== ring ? await kubeConfigRing.verificationKey(kid) : undefined);
          if (found === undefined) throw new errors.JWKSNoMatchingKey();
          return found.publicKey;
        },
        { issuer: this.#options.issuer(), audience: this.#options.audience, algorithms: [...SIGNING_ALGORITHMS], currentDate: new Date(this.#options.now()) },
      );
      payload = verified.payload;
    } catch (error: unknown) {
      if (error instanceof errors.JWTExpired) return refused('it expired');
      if (error instanceof errors.JWKSNoMatchingKey) return refused('it was not signed by a key this server accepts (unknown or retired)', false);
      if (error instanceof errors.JOSEError) return refused(error.message);
      throw error;
    }
    const claim = payload[this.#options.claimName];
    if (!isJsonObject(claim) || !isJsonObject(claim['accessKey'])) return refused(`the claim ${this.#options.claimName} is missing`);
    const { name, uid } = claim['accessKey'];
    if (typeof name !== 'string' || typeof uid !== 'string') return refused(`the claim ${this.#options.claimName}.accessKey is malformed`);
    const issuer = await this.#options.keys.authenticateIssuer(name, uid);
    if (!issuer.ok) return { ok: false, reason: issuer.reason, message: `the token is no longer valid: ${issuer.message.replace(/^Unauthorized: /, '')}`, ours: true };
    const scope = claim['scope'] as AccessScope | undefined;
    if (scopeExcess(callerScope(issuer.user), scope) !== undefined) {
      return refused(`the scope of the access key ${JSON.stringify(name)} was narrowed since the token was issued`);
    }
    const extra: Record<string, readonly string[]> = { ...issuer.user.extra };
    if (scope === undefined) delete extra[KEY_SCOPE_EXTRA];
    else extra[KEY_SCOPE_EXTRA] = [JSON.stringify(scope)];
    return { ok: true, user: { ...issuer.user, extra }, expiresAt: (payload.exp ?? 0) * 1000 };
  }
}
