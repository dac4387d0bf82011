/**
 * When the token-signing keys of the management API (for DirectClusterEndpointTokens) are used,
 * published and dropped. Pure: the ring's state and a clock in, decisions out; `signing-keys.ts` does the I/O.
 *
 * A key signs from `signFrom` until `signUntil`; its successor is generated `prepublishMs` before
 * that, so that verifiers holding a cached key set already know it when it starts signing; a key
 * is published and accepted until `acceptUntil` = `signUntil` + the longest token lifetime, so
 * every token it signed can be verified until it expires.
 */

/** The signature algorithms tokens can be signed with: RS256 as the reference platform, or ES256. */
export type SigningAlgorithm = 'RS256' | 'ES256';

/** The signature algorithms a management server signs with or accepts. */
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'ES256'];

/** The schedule of one key, in ms since the epoch. */
export interface KeyWindow {
  kid: string;
  signFrom: number;
  signUntil: number;
  acceptUntil: number;
}

/** How keys are rotated. */
export interface RotationPolicy {
  /** How long one key signs, in ms. */
  rotationIntervalMs: number;
  /** How long before a key stops signing its successor is generated and published, in ms. */
  prepublishMs: number;
  /** The longest lifetime of a token, in ms: a key stays accepted this long after it stopped signing. */
  maxTokenTtlMs: number;
}

/** What the ring needs now: a key to generate (with its window, kid to be given), and the kids to drop. */
export interface RotationPlan {
  add?: Omit<KeyWindow, 'kid'>;
  drop: string[];
}

/** The key that signs at `now`: the one with the latest `signFrom` whose window holds `now`, or undefined. */
export function signingKeyAt<T extends KeyWindow>(keys: readonly T[], now: number): T | undefined {
  let chosen: T | undefined;
  for (const key of keys) {
    if (key.signFrom <= now && now < key.signUntil && (chosen === undefined || key.signFrom > chosen.signFrom)) chosen = key;
  }
  return chosen;
}

/** The keys a verifier must know at `now` (published in the key set, accepted in token review). */
export function acceptedKeysAt<T extends KeyWindow>(keys: readonly T[], now: number): T[] {
  return keys.filter((key) => now < key.acceptUntil);
}

/**
 * What to change at `now`: a new key when none signs now (it signs at once), or when the newest
 * key ends within `prepublishMs` and has no successor (it signs from that end); and every key no
 * longer accepted is dropped.
 */
export function planRotation(keys: readonly KeyWindow[], now: number, policy: RotationPolicy): RotationPlan {
  const drop = keys.filter((key) => now >= key.acceptUntil).map((key) => key.kid);
  const window = (signFrom: number): Omit<KeyWindow, 'kid'> => {
    const signUntil = signFrom + policy.rotationIntervalMs;
    return { signFrom, signUntil, acceptUntil: signUntil + policy.maxTokenTtlMs };
  };
  const current = signingKeyAt(keys, now);
  if (current === undefined) return { add: window(now), drop };
  const newest = keys.reduce((latest, key) => (key.signUntil > latest.signUntil ? key : latest), current);
  if (newest.signUntil - now <= policy.prepublishMs) return { add: window(newest.signUntil), drop };
  return { drop };
}
