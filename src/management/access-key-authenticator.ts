import { LRUCache } from 'lru-cache';
import type { AuthenticatedUser, ObjectWriter, RequestAuthenticator, ResourceType, Storage, StorageEvent, StorageWatch, StoredObject } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import type { AuthenticationFailureCause, ManagementMetrics } from './management-metrics.js';
import { isKeyHash, sameKeyHash, type AccessKeyHasher } from './access-key-hasher.js';
import { AccessKeyIndex } from './access-key-index.js';
import {
  ACCESS_KEY_EXTRA,
  ACCESS_KEY_UID_EXTRA,
  AUTH_CACHE_MAX_KEYS,
  AUTH_REWATCH_DELAY_MS,
  LAST_ACTIVITY_WRITE_INTERVAL_MS,
  MANAGEMENT_FIELD_MANAGER,
  KEY_OWNERS_EXTRA,
  KEY_SCOPE_EXTRA,
  MAX_KEY_LENGTH,
  OWNER_KIND_EXTRA,
  OWNER_NAME_EXTRA,
} from './management-constants.js';
import { expiresAtMs, ownerOf, ownersOf, specOf } from './owned-access-key-kind.js';
import type { TokenReviewRequest, TokenVerification, TokenVerifier } from './token-verifier.js';

/** Options of {@link AccessKeyAuthenticator}. */
export interface AccessKeyAuthenticatorOptions {
  /** Where OwnedAccessKeys live (the management server's storage). */
  storage: Storage;
  /** The management server's registry store: `status.lastActivity` is written through it. */
  writer: ObjectWriter;
  /** The served OwnedAccessKey resource. */
  type: ResourceType;
  hasher: AccessKeyHasher;
  /** Wall clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** `status.lastActivity` is written at most once per this many ms per key. Default {@link LAST_ACTIVITY_WRITE_INTERVAL_MS}. */
  lastActivityWriteIntervalMs?: number;
  /** Verified keys cached. Default {@link AUTH_CACHE_MAX_KEYS}. */
  cacheMaxKeys?: number;
  /** Counts refused management requests by cause. Default: not counted. */
  metrics?: ManagementMetrics;
  logger: Logger;
}

type Failure = { ok: false; reason: string; message: string };

/** What a request without a usable Authorization header is told. */
const NO_KEY = 'Unauthorized: send an access key as "Authorization: Bearer <key>"';

/**
 * Authenticates management requests by `Authorization: Bearer <access key>`: the key's HMAC finds
 * its OwnedAccessKey; a disabled, expired (spec.ttl from creation, or from the last use with
 * ttlAfterLastActivity) or unknown key is refused with a 401 whose message says which (never the
 * key). The user is the key's owner (`spec.user`, `spec.team` or `spec.subject`) with `spec.groups`;
 * its `extra` carries every owner the key names and the key's `spec.scope` for the authorizer.
 *
 * Verified keys are cached (LRU) only while {@link run}'s watch of the keys is open: every change
 * or deletion of a key evicts it, so an update, disable or delete takes effect on the next request
 * on every replica. A key missing from the cache is found through an index of every stored key's
 * hash, kept by the same list and watch (on every replica and after a restart, from the storage),
 * then read from storage by name: a miss costs the same whatever the number of keys. Without the
 * watch nothing in memory is trusted: each request lists the keys. Each use is noted;
 * `status.lastActivity` is written at most once per `lastActivityWriteIntervalMs` per key.
 */
export class AccessKeyAuthenticator implements RequestAuthenticator, TokenVerifier {
  readonly #options: AccessKeyAuthenticatorOptions;
  readonly #now: () => number;
  readonly #writeIntervalMs: number;
  /** Key hash → the key object as last read; trusted only while the watch is open. */
  readonly #cache: LRUCache<string, StoredObject>;
  /** Key hash → the name of the object holding it, every stored key; trusted only while the watch is open. */
  readonly #index = new AccessKeyIndex();
  /**
   * Key object → the user it authenticates as, built once per version of the key (a change is a
   * new object) and frozen, so that a cached key costs no rebuilding per request.
   */
  readonly #users = new WeakMap<StoredObject, AuthenticatedUser>();
  /** Object name → when the key was last used here (ms). */
  readonly #lastUse = new Map<string, number>();
  /** Object name → when lastActivity was last written (or read) for it (ms). */
  readonly #lastWritten = new Map<string, number>();
  readonly #pendingWrites = new Set<Promise<void>>();
  /** Bumped by every watch event: a lookup that raced with one does not cache what it read. */
  #changes = 0;
  #watching = false;

  /** Does no I/O; call {@link run} to keep the cache. */
  constructor(options: AccessKeyAuthenticatorOptions) {
    this.#options = options;
    this.#now = options.now ?? ((): number => Date.now());
    this.#writeIntervalMs = options.lastActivityWriteIntervalMs ?? LAST_ACTIVITY_WRITE_INTERVAL_MS;
    this.#cache = new LRUCache({ max: options.cacheMaxKeys ?? AUTH_CACHE_MAX_KEYS });
  }

  /** Keys cached right now (for tests and metrics). */
  get cachedKeys(): number {
    return this.#watching ? this.#cache.size : 0;
  }

  /** Keys in the index of key hashes right now (for tests and metrics). */
  get indexedKeys(): number {
    return this.#watching ? this.#index.size : 0;
  }

  /**
   * Lists and watches the keys until `signal` fires, indexing their hashes and evicting every key
   * that changes from the cache; lists and watches again (after
   * {@link AUTH_REWATCH_DELAY_MS}) when the storage ends the watch. Resolves once stopped and the
   * pending lastActivity writes settled.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { storage, type, logger } = this.#options;
    while (!signal.aborted) {
      const ended = new Promise<void>((resolve) => {
        let watch: StorageWatch | undefined;
        const stop = (): void => {
          this.#watching = false;
          this.#cache.clear();
          this.#index.clear();
          watch?.close();
          signal.removeEventListener('abort', stop);
          resolve();
        };
        signal.addEventListener('abort', stop);
        storage
          .list(type.id)
          .then((listed) => {
            // Indexed before the watch opens: its events (replayed ones first) follow the list.
            this.#index.replace(listed.items);
            return storage.watch({ resource: type.id }, listed.resourceVersion, {
              onEvent: (event) => this.#changed(event),
              onClosed: (end) => {
                logger.warn({ end }, 'Access-key watch ended; authenticating without the cache until it is back');
                stop();
              },
            });
          })
          .then((opened) => {
            watch = opened;
            if (signal.aborted) opened.close();
            else this.#watching = true;
          })
          .catch((error: unknown) => {
            logger.warn({ err: error }, 'Access-key watch failed to start; authenticating without the cache until it is back');
            stop();
          });
      });
      await ended;
      if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, AUTH_REWATCH_DELAY_MS));
    }
    await Promise.allSettled([...this.#pendingWrites]);
  }

  /** Authenticates one request's bearer key; see the class comment. Counts each refusal by cause. */
  async authenticate(input: { authorization: string | undefined }): Promise<{ ok: true; user: AuthenticatedUser } | Failure> {
    const header = input.authorization;
    if (header === undefined || header === '') return this.#refused('no_key', { ok: false, reason: 'no Authorization header', message: NO_KEY });
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    const key = match?.[1];
    if (key === undefined || key.length > MAX_KEY_LENGTH) {
      return this.#refused('malformed', {
        ok: false,
        reason: 'malformed Authorization header',
        message: `Unauthorized: the Authorization header is malformed; ${NO_KEY.slice('Unauthorized: '.length)}`,
      });
    }
    const verified = await this.#verifyKey(key);
    if (verified.ok) return verified;
    return this.#refused(verified.cause, { ok: false, reason: verified.reason, message: `Unauthorized: ${verified.problem}` });
  }

  #refused(cause: AuthenticationFailureCause, failure: Failure): Failure {
    this.#options.metrics?.authenticationFailed(cause);
    return failure;
  }

  /**
   * The token review's view of the same check ({@link TokenVerifier}): a token that is no key's is
   * `unrecognized` (another verifier may know it); a key that is disabled, expired or ownerless is
   * `refused` with the same explanation a management request gets, naming the key, never the
   * token. Access keys are not bound to an audience: any audience asked for is accepted. Uses the
   * cache and notes the use (lastActivity) exactly as {@link authenticate} does.
   */
  async verifyToken(request: TokenReviewRequest): Promise<TokenVerification> {
    if (request.token.length > MAX_KEY_LENGTH) return { outcome: 'unrecognized' };
    const verified = await this.#verifyKey(request.token);
    if (verified.ok) return { outcome: 'authenticated', user: verified.user };
    return verified.known ? { outcome: 'refused', error: verified.problem } : { outcome: 'unrecognized' };
  }

  /** Finds and checks the key; `problem` says what is wrong without the key, `known` whether some key object matched. */
  async #verifyKey(key: string): Promise<{ ok: true; user: AuthenticatedUser } | { ok: false; known: boolean; cause: AuthenticationFailureCause; reason: string; problem: string }> {
    const hash = this.#options.hasher.hash(key);
    const object = await this.#lookup(hash);
    const stored = specOf(object)['key'];
    // The object the cache or the index gave is checked against the storage's hash, in constant time:
    // an index that lagged a change cannot accept a key that no longer holds this hash.
    if (object === undefined || !isKeyHash(stored) || !sameKeyHash(hash, stored)) {
      return { ok: false, known: false, cause: 'unknown_key', reason: 'unknown access key', problem: 'the access key is not valid (unknown, or deleted)' };
    }
    return this.#accept(object, this.#now(), true);
  }

  /**
   * Whether the access key `name` that issued a token is still usable, and the user it stands for:
   * it must exist with the same `uid` (not deleted and created again), be enabled and not expired.
   * The same checks and user as {@link authenticate}; the use is not recorded as the key's activity.
   */
  async authenticateIssuer(name: string, uid: string): Promise<{ ok: true; user: AuthenticatedUser } | Failure> {
    const object = await this.#options.storage.get({ resource: this.#options.type.id, namespace: '', name });
    if (object === undefined || object.metadata.uid !== uid) {
      return { ok: false, reason: `access key ${name} is gone`, message: `the access key ${JSON.stringify(name)} that issued the token was deleted` };
    }
    const accepted = this.#accept(object, this.#now(), false);
    return accepted.ok ? accepted : { ok: false, reason: accepted.reason, message: accepted.problem };
  }

  /** The user of a found key, or why it is refused (disabled, expired, no owner); notes the use when `record`. */
  #accept(object: StoredObject, now: number, record: boolean): { ok: true; user: AuthenticatedUser } | { ok: false; known: true; cause: AuthenticationFailureCause; reason: string; problem: string } {
    const name = object.metadata.name;
    if (specOf(object)['disabled'] === true) {
      return { ok: false, known: true, cause: 'disabled', reason: `access key ${name} is disabled`, problem: `the access key ${JSON.stringify(name)} is disabled; an admin or its owner can enable it (spec.disabled: false)` };
    }
    const expiresAt = expiresAtMs(object, this.#lastUse.get(name));
    if (expiresAt !== undefined && expiresAt <= now) {
      const why = specOf(object)['ttlAfterLastActivity'] === true ? 'after its time to live without activity' : 'at the end of its time to live';
      return {
        ok: false,
        known: true,
        cause: 'expired',
        reason: `access key ${name} expired`,
        problem: `the access key ${JSON.stringify(name)} expired at ${new Date(expiresAt).toISOString()} (${why}); create a new key`,
      };
    }
    const user = this.#userOf(object);
    if (user === undefined) return { ok: false, known: true, cause: 'no_owner', reason: `access key ${name} has no owner`, problem: 'the access key is not valid (it names no user, team or subject)' };
    if (record) this.#noteUse(object, now);
    return { ok: true, user };
  }

  /** The user `object` authenticates as (frozen, built once per key object), or undefined when it names no owner. */
  #userOf(object: StoredObject): AuthenticatedUser | undefined {
    const known = this.#users.get(object);
    if (known !== undefined) return known;
    const owner = ownerOf(object);
    if (owner === undefined) return undefined;
    const spec = specOf(object);
    const scope = spec['scope'];
    const groups = Array.isArray(spec['groups']) ? (spec['groups'] as unknown[]).filter((group): group is string => typeof group === 'string') : [];
    const extra: Record<string, readonly string[]> = {
      [OWNER_KIND_EXTRA]: Object.freeze([owner.kind]),
      [OWNER_NAME_EXTRA]: Object.freeze([owner.name]),
      [ACCESS_KEY_EXTRA]: Object.freeze([object.metadata.name]),
      [ACCESS_KEY_UID_EXTRA]: Object.freeze([object.metadata.uid ?? '']),
      [KEY_OWNERS_EXTRA]: Object.freeze(ownersOf(object)),
      ...(scope !== undefined && scope !== null ? { [KEY_SCOPE_EXTRA]: Object.freeze([JSON.stringify(scope)]) } : {}),
    };
    const user: AuthenticatedUser = Object.freeze({
      username: owner.kind === 'user' ? owner.name : `${owner.kind}:${owner.name}`,
      groups: Object.freeze([...new Set([...groups, 'system:authenticated'])]) as string[],
      extra: Object.freeze(extra),
    });
    this.#users.set(object, user);
    return user;
  }

  /**
   * The key object whose hash is `hash`, or an object the caller finds holding another hash or
   * nothing when none does. While the watch is open: from the cache, else the object the index
   * names as storage holds it now; without the watch, from a list of the keys.
   */
  async #lookup(hash: string): Promise<StoredObject | undefined> {
    const { storage, type } = this.#options;
    if (!this.#watching) {
      const listed = await storage.list(type.id);
      return listed.items.find((item) => specOf(item)['key'] === hash);
    }
    const cached = this.#cache.get(hash);
    if (cached !== undefined) return cached;
    const name = this.#index.nameOf(hash);
    if (name === undefined) return undefined;
    const changes = this.#changes;
    const found = await storage.get({ resource: type.id, namespace: '', name });
    const stored = specOf(found)['key'];
    // Cached only when no change came in while it was read: a later version would be missed.
    if (found !== undefined && isKeyHash(stored) && sameKeyHash(hash, stored) && this.#watching && changes === this.#changes) this.#cache.set(hash, found);
    return found;
  }

  /** One change of a key: indexed, and the key evicted from the cache under its old and new hash. */
  #changed(event: StorageEvent): void {
    this.#changes += 1;
    const name = event.object.metadata.name;
    const before = this.#index.hashOf(name);
    this.#index.apply(event);
    if (before !== undefined) this.#cache.delete(before);
    const after = this.#index.hashOf(name);
    if (after !== undefined) this.#cache.delete(after);
    if (event.type === 'DELETED') {
      // A key created again under the name is another key: it starts with no use noted here.
      this.#lastUse.delete(name);
      this.#lastWritten.delete(name);
    }
  }

  /** Notes a use; writes status.lastActivity when the last write is older than the interval. */
  #noteUse(object: StoredObject, now: number): void {
    const name = object.metadata.name;
    this.#lastUse.set(name, now);
    const status = object['status'];
    const recorded = Date.parse(String(typeof status === 'object' && status !== null ? (status as Record<string, unknown>)['lastActivity'] ?? '' : ''));
    const lastWritten = Math.max(this.#lastWritten.get(name) ?? 0, Number.isNaN(recorded) ? 0 : recorded);
    if (now - lastWritten < this.#writeIntervalMs) return;
    this.#lastWritten.set(name, now);
    const { writer, type, logger } = this.#options;
    const lastActivity = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const write = writer
      .patch(type, '', name, 'application/merge-patch+json', { status: { lastActivity } }, { dryRun: false, subresource: 'status', fieldManager: MANAGEMENT_FIELD_MANAGER })
      .then(
        () => undefined,
        (error: unknown) => {
          // Best effort: the request is already authenticated; the next use after the interval retries.
          logger.warn({ err: error, accessKey: name }, 'Could not record the last activity of an access key');
        },
      )
      .finally(() => this.#pendingWrites.delete(write));
    this.#pendingWrites.add(write);
  }
}
