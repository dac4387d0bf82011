import { randomUUID } from 'node:crypto';
import { ApiError, badRequest } from '../apimachinery/index.js';
import type { StorageList, StoredObject } from './storage.js';

/** Options of {@link ListPager}. */
export interface ListPagerOptions {
  /** How long a paged list's snapshot stays usable after its last page was served, in ms. Default 300_000 (5 min). */
  snapshotTtlMs?: number;
  /** Most snapshots kept at once; the least recently used is dropped beyond it. Default 64. */
  maxSnapshots?: number;
  /** Monotonic clock in ms. Default `performance.now`. */
  now?: () => number;
}

/** {@link ListPagerOptions} with every default applied. */
export type ResolvedListPagerOptions = Readonly<Required<ListPagerOptions>>;

/** Validates `options` and returns a new frozen object with defaults filled in. */
export function withDefaults(options: ListPagerOptions = {}): ResolvedListPagerOptions {
  const resolved = {
    snapshotTtlMs: options.snapshotTtlMs ?? 300_000,
    maxSnapshots: options.maxSnapshots ?? 64,
    now: options.now ?? (() => performance.now()),
  };
  if (!(resolved.snapshotTtlMs > 0)) throw new RangeError(`snapshotTtlMs must be positive, got ${resolved.snapshotTtlMs}`);
  if (!Number.isInteger(resolved.maxSnapshots) || resolved.maxSnapshots < 1) throw new RangeError(`maxSnapshots must be a positive integer, got ${resolved.maxSnapshots}`);
  return Object.freeze(resolved);
}

/** One page of a list. */
export interface ListPage {
  items: StoredObject[];
  /** The resourceVersion every page of this list reflects. */
  resourceVersion: string;
  /** Token for the next page; undefined on the last page. */
  continueToken: string | undefined;
  /** Matching items after this page, when known. */
  remainingItemCount: number | undefined;
}

/** What to page through. */
export interface ListPageRequest {
  /** Reads the current snapshot of the collection (only for a first page). */
  snapshot: () => Promise<StorageList>;
  /** Selectors; the client repeats them on every page. */
  matches: (object: StoredObject) => boolean;
  /** `limit`; 0 or undefined means all. */
  limit: number | undefined;
  /** `continue` token of a previous page. */
  continueToken: string | undefined;
}

interface Snapshot extends StorageList {
  expiresAt: number;
}

interface TokenBody {
  id: string;
  rv: string;
  start: number;
}

function decodeToken(token: string): TokenBody {
  try {
    const body: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof body === 'object' && body !== null) {
      const { id, rv, start } = body as Record<string, unknown>;
      // A numeric rv is how tokens carried the resourceVersion before it was opaque: still well formed.
      if (typeof id === 'string' && (typeof rv === 'string' || typeof rv === 'number') && typeof start === 'number' && Number.isInteger(start) && start >= 0) {
        return { id, rv: String(rv), start };
      }
    }
  } catch {
    // Falls through to the 400 below: the token is not ours.
  }
  throw badRequest(`continue key is not valid: ${token}`);
}

/**
 * Serves `limit`/`continue` pages as consistent snapshots: the first page pins the collection
 * as it is at that resourceVersion, and every later page is cut from the same snapshot, so a paged
 * list never mixes versions. Snapshots live {@link ListPagerOptions.snapshotTtlMs} after their last
 * use, at most {@link ListPagerOptions.maxSnapshots} at once; a token whose snapshot is gone
 * answers 410 Expired (the client starts a new list), a malformed one 400.
 */
export class ListPager {
  readonly #options: ResolvedListPagerOptions;
  readonly #snapshots = new Map<string, Snapshot>();

  /** Starts no timers: expiry is checked on use. */
  constructor(options: ListPagerOptions = {}) {
    this.#options = withDefaults(options);
  }

  /** Number of snapshots held. */
  get size(): number {
    return this.#snapshots.size;
  }

  /** Serves one page (or the whole list when no limit and no token). */
  async page(request: ListPageRequest): Promise<ListPage> {
    this.#expire();
    let snapshot: StorageList;
    let start = 0;
    let id: string | undefined;
    if (request.continueToken !== undefined && request.continueToken !== '') {
      const token = decodeToken(request.continueToken);
      const held = this.#snapshots.get(token.id);
      if (held === undefined || held.resourceVersion !== token.rv) {
        throw new ApiError(
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      snapshot = held;
      start = token.start;
      id = token.id;
    } else {
      snapshot = await request.snapshot();
    }
    const limit = request.limit !== undefined && request.limit > 0 ? request.limit : Number.POSITIVE_INFINITY;
    const items: StoredObject[] = [];
    let index = start;
    for (; index < snapshot.items.length && items.length < limit; index += 1) {
      const item = snapshot.items[index];
      if (item !== undefined && request.matches(item)) items.push(item);
    }
    let remaining = 0;
    for (let rest = index; rest < snapshot.items.length; rest += 1) {
      const item = snapshot.items[rest];
      if (item !== undefined && request.matches(item)) remaining += 1;
    }
    if (remaining === 0) {
      // The snapshot stays until it expires: a client may retry the last page, as with etcd.
      return { items, resourceVersion: snapshot.resourceVersion, continueToken: undefined, remainingItemCount: undefined };
    }
    id ??= randomUUID();
    this.#snapshots.delete(id);
    this.#snapshots.set(id, { items: snapshot.items, resourceVersion: snapshot.resourceVersion, expiresAt: this.#options.now() + this.#options.snapshotTtlMs });
    while (this.#snapshots.size > this.#options.maxSnapshots) {
      const oldest = this.#snapshots.keys().next().value;
      if (oldest === undefined) break;
      this.#snapshots.delete(oldest);
    }
    const continueToken = Buffer.from(JSON.stringify({ id, rv: snapshot.resourceVersion, start: index } satisfies TokenBody)).toString('base64url');
    return { items, resourceVersion: snapshot.resourceVersion, continueToken, remainingItemCount: remaining };
  }

  #expire(): void {
    const now = this.#options.now();
    for (const [id, snapshot] of this.#snapshots) {
      if (snapshot.expiresAt <= now) this.#snapshots.delete(id);
    }
  }
}
