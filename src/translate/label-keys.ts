import { REWRITTEN_LABEL_KEYS, REWRITTEN_LABEL_PREFIX } from './keys.js';
import { safeConcatName, sha256Hex } from './safe-concat-name.js';

/**
 * The host key of a virtual label key. The four keys that vcluster itself sets on host objects
 * (`release`, `vcluster.loft.sh/namespace`, `vcluster.loft.sh/managed-by`,
 * `vcluster.loft.sh/controlled-by`) become
 * `safeConcatName("vcluster.loft.sh/label", vclusterName, "x", first 10 hex of sha256(key))`;
 * every other key is unchanged. `release` with vcluster `suffix` →
 * `vcluster.loft.sh/label-suffix-x-a4d451ec23`.
 */
export function hostLabelKey(key: string, vclusterName: string): string {
  return rewrittenKeys(vclusterName).toHost.get(key) ?? key;
}

/**
 * The virtual key of a host label key: restores a rewritten key, returns any other key unchanged.
 * Inverse of {@link hostLabelKey} for the same vcluster name.
 */
export function virtualLabelKey(hostKey: string, vclusterName: string): string {
  return rewrittenKeys(vclusterName).toVirtual.get(hostKey) ?? hostKey;
}

/**
 * True when `key` is the rewritten form of one of the four colliding keys for this vcluster
 * (`vcluster.loft.sh/label-<vcluster>-x-<10 hex>`). A virtual label with such a key is never
 * copied (vcluster drops it too): on the host it would overwrite the rewritten value of the
 * tenant's own `release` (or other colliding) label.
 */
export function isRewrittenLabelKey(key: string, vclusterName: string): boolean {
  return virtualLabelKey(key, vclusterName) !== key;
}

function rewrittenLabelKey(key: string, vclusterName: string): string {
  return safeConcatName(REWRITTEN_LABEL_PREFIX, vclusterName, 'x', sha256Hex(key).slice(0, 10));
}

/** The four colliding keys of one vcluster name and their rewritten forms, both ways. */
interface RewrittenKeys {
  /** Virtual key → host key, for the four colliding keys only. */
  readonly toHost: ReadonlyMap<string, string>;
  /** Host key → virtual key: the inverse (the first colliding key wins, as a search in order would). */
  readonly toVirtual: ReadonlyMap<string, string>;
}

/** Vcluster names whose rewritten keys are remembered; past it the memo starts over (a process serves one name). */
const MAX_REMEMBERED_NAMES = 16;

/**
 * The rewritten keys by vcluster name. Each key costs a SHA-256 and a concatenation, and every
 * label of every synced object is looked up (eight hashes per two-label object, the largest part
 * of translating its metadata); the result depends on the name alone, so it is computed once.
 * A memo of a pure function: callers see the same results as without it.
 */
const rewrittenKeysByName = new Map<string, RewrittenKeys>();

function rewrittenKeys(vclusterName: string): RewrittenKeys {
  const known = rewrittenKeysByName.get(vclusterName);
  if (known !== undefined) return known;
  const toHost = new Map<string, string>();
  const toVirtual = new Map<string, string>();
  for (const key of REWRITTEN_LABEL_KEYS) {
    const hostKey = rewrittenLabelKey(key, vclusterName);
    toHost.set(key, hostKey);
    if (!toVirtual.has(hostKey)) toVirtual.set(hostKey, key);
  }
  if (rewrittenKeysByName.size >= MAX_REMEMBERED_NAMES) rewrittenKeysByName.clear();
  const keys: RewrittenKeys = { toHost, toVirtual };
  rewrittenKeysByName.set(vclusterName, keys);
  return keys;
}
