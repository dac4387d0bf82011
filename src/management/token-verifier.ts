/**
 * The credentials the token review answers for, each behind one small interface: access keys now,
 * the direct-cluster-endpoint JWTs as a second verifier later, without touching the
 * webhook.
 */
import type { AuthenticatedUser } from '../apiserver/index.js';

/** What the webhook asks a verifier: the bearer token and the audiences the caller wants it valid for (may be empty). */
export interface TokenReviewRequest {
  token: string;
  audiences: readonly string[];
}

/**
 * A verifier's answer. `unrecognized`: not a token of this kind (the next verifier is asked);
 * `refused`: a token of this kind that must not authenticate, `error` says why without the token;
 * `authenticated`: the user, and `audiences` when the token is bound to some (the requested ones it
 * is valid for, never empty: a bound token valid for none of them is `refused`); undefined
 * `audiences` means the token is valid for any audience.
 */
export type TokenVerification =
  | { outcome: 'authenticated'; user: AuthenticatedUser; audiences?: readonly string[] }
  | { outcome: 'refused'; error: string }
  | { outcome: 'unrecognized' };

/** Checks one kind of bearer token. Never rejects for a bad token: that is an outcome. */
export interface TokenVerifier {
  verifyToken(request: TokenReviewRequest): Promise<TokenVerification>;
}

/** A verifier with a name for the answer to a token nobody recognizes, e.g. `access key`. */
export interface NamedTokenVerifier {
  /** What kind of token it verifies, in the words of an error message (`access key`). */
  kind: string;
  verifier: TokenVerifier;
}

/**
 * Asks each verifier in order; the first that recognizes the token answers. A token none
 * recognizes is refused with an error naming the kinds asked for (never the token).
 */
export class TokenVerifierChain implements TokenVerifier {
  readonly #verifiers: readonly NamedTokenVerifier[];

  constructor(verifiers: readonly NamedTokenVerifier[]) {
    if (verifiers.length === 0) throw new TypeError('a token verifier chain needs at least one verifier');
    this.#verifiers = [...verifiers];
  }

  async verifyToken(request: TokenReviewRequest): Promise<TokenVerification> {
    for (const { verifier } of this.#verifiers) {
      const verification = await verifier.verifyToken(request);
      if (verification.outcome !== 'unrecognized') return verification;
    }
    const kinds = this.#verifiers.map((entry) => entry.kind);
    return { outcome: 'refused', error: `the token is not a valid ${kinds.join(' or ')} (unknown, or deleted)` };
  }
}
