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
  if (!REWRITTEN_LABEL_KEYS.includes(key)) return key;
  return rewrittenLabelKey(key, vclusterName);
}

/**
 * The virtual key of a host label key: restores a rewritten key, returns any other key unchanged.
 * Inverse of {@link hostLabelKey} for the same vcluster name.
 */
export function virtualLabelKey(hostKey: string, vclusterName: string): string {
  for (const key of REWRITTEN_LABEL_KEYS) {
    if (rewrittenLabelKey(key, vclusterName) === hostKey) return key;
  }
  return hostKey;
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
