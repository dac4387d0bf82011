import { createPrivateKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { type Storage, StorageError, type StoredObject } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import { acceptedKeysAt, planRotation, signingKeyAt, type KeyWindow, type RotationPolicy, type SigningAlgorithm } from './key-rotation.js';
import { SIGNING_KEY_RING_NAME, SIGNING_KEY_RING_RESOURCE } from './management-constants.js';

/** One key of the ring as stored: its window, the private key (PKCS#8 PEM) and the public JWK. */
interface StoredKey extends KeyWindow {
  alg: SigningAlgorithm;
  privateKeyPem: string;
  publicJwk: JWK;
}

/** The ring as stored: one object, written with optimistic concurrency, so replicas share it. */
interface RingObject extends StoredObject {
  keys: StoredKey[];
}

/** The key that signs now, ready to use. */
export interface ActiveSigningKey {
  kid: string;
  alg: SigningAlgorithm;
  /** A node:crypto key, parsed once per kid. */
  privateKey: KeyObject;
}

/** Options of {@link SigningKeyRing}. */
export interface SigningKeyRingOptions {
  /** Where the ring lives: the management server's storage (host Secrets in the daemon). */
  storage: Storage;
  /** The algorithm of keys generated from now on (existing keys keep theirs). */
  algorithm: SigningAlgorithm;
  /** The ring's object in storage. Default {@link SIGNING_KEY_RING_NAME} (the DirectClusterEndpointTokens' keys). */
  name?: string;
  policy: RotationPolicy;
  /** Wall clock in ms since the epoch. */
  now: () => number;
  logger: Logger;
}

/** Writes that lost a race with another replica are retried this many times. */
const WRITE_ATTEMPTS = 5;

function isRing(object: StoredObject | undefined): object is RingObject {
  return object !== undefined && Array.isArray(object['keys']);
}

async function generateKey(algorithm: SigningAlgorithm, window: Omit<KeyWindow, 'kid'>): Promise<StoredKey> {
  const pair = await generateKeyPair(algorithm, { extractable: true, ...(algorithm === 'RS256' ? { modulusLength: 2048 } : {}) });
  const publicJwk = await exportJWK(pair.publicKey);
  // RFC 7638 thumbprint: a kid every replica and verifier derives alike from the key itself.
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  return { kid, alg: algorithm, privateKeyPem: await exportPKCS8(pair.privateKey), publicJwk: { ...publicJwk, kid, alg: algorithm, use: 'sig' }, ...window };
}

/**
 * The keys that sign DirectClusterEndpointTokens, kept in the management storage (one object
 * that the API does not serve) so that every replica signs with the same key and accepts the
 * same ones. The ring is read from storage on every use (the daemon's storage answers from its
 * watch-backed cache) and rotated there when `planRotation` says so; a write that loses the race
 * to another replica re-reads and uses the winner's keys. Imported keys are cached by kid.
 */
export class SigningKeyRing {
  readonly #options: SigningKeyRingOptions;
  readonly #imported = new Map<string, Promise<CryptoKey>>();
  /** The private keys parsed from PEM, by kid: parsing one costs about as much as a signature. */
  readonly #privateKeys = new Map<string, KeyObject>();

  /** Does no I/O. */
  constructor(options: SigningKeyRingOptions) {
    this.#options = options;
  }

  /** The key to sign with now, rotating the ring first when it is due. */
  async signingKey(): Promise<ActiveSigningKey> {
    const now = this.#options.now();
    const keys = await this.#current(now);
    const key = signingKeyAt(keys, now);
    if (key === undefined) throw new Error('the signing-key ring has no key for now right after its rotation; the clock moved backwards?');
    let privateKey = this.#privateKeys.get(key.kid);
    if (privateKey === undefined) {
      privateKey = createPrivateKey(key.privateKeyPem);
      this.#privateKeys.set(key.kid, privateKey);
    }
    return { kid: key.kid, alg: key.alg, privateKey };
  }

  /** The public key `kid` while it is accepted, or undefined (unknown, or past its window). */
  async verificationKey(kid: string): Promise<{ alg: SigningAlgorithm; publicKey: CryptoKey } | undefined> {
    const now = this.#options.now();
    const key = acceptedKeysAt(await this.#current(now), now).find((candidate) => candidate.kid === kid);
    if (key === undefined) return undefined;
    return { alg: key.alg, publicKey: await this.#import(`public:${kid}`, async () => (await importJWK(key.publicJwk, key.alg)) as CryptoKey) };
  }

  /** The JSON Web Key Set of every accepted key (public parts only), for `jwks_uri`. */
  async keySet(): Promise<{ keys: JWK[] }> {
    const now = this.#options.now();
    return { keys: acceptedKeysAt(await this.#current(now), now).map((key) => key.publicJwk) };
  }

  #import(id: string, load: () => Promise<CryptoKey>): Promise<CryptoKey> {
    let imported = this.#imported.get(id);
    if (imported === undefined) {
      imported = load();
      this.#imported.set(id, imported);
      imported.catch(() => this.#imported.delete(id));
    }
    return imported;
  }

  /** The ring's keys at `now`, rotated in storage first when due. */
  async #current(now: number): Promise<StoredKey[]> {
    const { storage, policy, algorithm, logger } = this.#options;
    const name = this.#options.name ?? SIGNING_KEY_RING_NAME;
    const ref = { resource: SIGNING_KEY_RING_RESOURCE, namespace: '', name };
    for (let attempt = 1; ; attempt += 1) {
      const stored = await storage.get(ref);
      const keys = isRing(stored) ? stored.keys : [];
      const plan = planRotation(keys, now, policy);
      if (plan.add === undefined && plan.drop.length === 0) return keys;
      const next = keys.filter((key) => !plan.drop.includes(key.kid));
      if (plan.add !== undefined) next.push(await generateKey(algorithm, plan.add));
      const object: RingObject = { apiVersion: 'internal.vcsync.dev/v1', kind: 'SigningKeyRing', metadata: { name }, keys: next };
      try {
        if (stored === undefined) await storage.create(SIGNING_KEY_RING_RESOURCE, object);
        else await storage.update(SIGNING_KEY_RING_RESOURCE, { ...object, metadata: { ...stored.metadata } }, { resourceVersion: stored.metadata.resourceVersion ?? '' });
      } catch (error: unknown) {
        const lostRace = error instanceof StorageError && (error.code === 'AlreadyExists' || error.code === 'Conflict');
        if (lostRace && attempt < WRITE_ATTEMPTS) continue; // another replica rotated: use its keys
        throw error;
      }
      for (const kid of plan.drop) {
        this.#privateKeys.delete(kid);
        this.#imported.delete(`public:${kid}`);
      }
      logger.info(
        { ring: name, added: plan.add === undefined ? undefined : { signFrom: new Date(plan.add.signFrom).toISOString(), algorithm }, dropped: plan.drop },
        'Rotated the token-signing keys',
      );
      return next;
    }
  }
}
