import { describe, expect, it } from 'vitest';
import { safeConcatName, sha256Hex } from '../../../src/translate/safe-concat-name.js';
import { hostLabelKey, isRewrittenLabelKey, virtualLabelKey } from '../../../src/translate/label-keys.js';
import { REWRITTEN_LABEL_KEYS, REWRITTEN_LABEL_PREFIX } from '../../../src/translate/keys.js';

/** The rewritten key as the rule states it, computed afresh (no memo). */
function expectedHostKey(key: string, vclusterName: string): string {
  return safeConcatName(REWRITTEN_LABEL_PREFIX, vclusterName, 'x', sha256Hex(key).slice(0, 10));
}

describe('label keys', () => {
  it('gives every vcluster name its own rewritten keys, however many names are asked for in turn', () => {
    // More names than the memo keeps, asked for twice in interleaved order.
    const names = Array.from({ length: 40 }, (_, i) => `vc-${i}`);
    for (const round of [0, 1]) {
      for (const name of round === 0 ? names : [...names].reverse()) {
        for (const key of REWRITTEN_LABEL_KEYS) {
          const host = expectedHostKey(key, name);
          expect(hostLabelKey(key, name)).toBe(host);
          expect(virtualLabelKey(host, name)).toBe(key);
          expect(isRewrittenLabelKey(host, name)).toBe(true);
          expect(isRewrittenLabelKey(key, name)).toBe(false);
        }
        expect(hostLabelKey('app', name)).toBe('app');
        expect(virtualLabelKey(expectedHostKey('release', `${name}-other`), name)).toBe(expectedHostKey('release', `${name}-other`));
      }
    }
  });
});
