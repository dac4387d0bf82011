import { describe, expect, it } from 'vitest';
import { acceptedKeysAt, planRotation, signingKeyAt, type KeyWindow, type RotationPolicy } from '../../../src/management/key-rotation.js';

const HOUR = 3600_000;
const POLICY: RotationPolicy = { rotationIntervalMs: 24 * HOUR, prepublishMs: HOUR, maxTokenTtlMs: 2 * HOUR };

function key(kid: string, signFrom: number): KeyWindow {
  return { kid, signFrom, signUntil: signFrom + POLICY.rotationIntervalMs, acceptUntil: signFrom + POLICY.rotationIntervalMs + POLICY.maxTokenTtlMs };
}

describe('signing-key rotation', () => {
  it('an empty ring gets a key that signs at once, for one interval, accepted a token lifetime longer', () => {
    expect(planRotation([], 1000, POLICY)).toEqual({ add: { signFrom: 1000, signUntil: 1000 + 24 * HOUR, acceptUntil: 1000 + 26 * HOUR }, drop: [] });
  });

  it('nothing changes while the signing key has more than the prepublish time left', () => {
    expect(planRotation([key('a', 0)], 23 * HOUR - 1, POLICY)).toEqual({ drop: [] });
  });

  it('the successor is published one prepublish time before the key retires and signs from its end', () => {
    expect(planRotation([key('a', 0)], 23 * HOUR, POLICY)).toEqual({ add: { signFrom: 24 * HOUR, signUntil: 48 * HOUR, acceptUntil: 50 * HOUR }, drop: [] });
    // Once published, no second successor.
    expect(planRotation([key('a', 0), key('b', 24 * HOUR)], 23.5 * HOUR, POLICY)).toEqual({ drop: [] });
  });

  it('the newest key whose window holds now signs; a prepublished key does not sign early', () => {
    const ring = [key('a', 0), key('b', 24 * HOUR)];
    expect(signingKeyAt(ring, 23.9 * HOUR)?.kid).toBe('a');
    expect(signingKeyAt(ring, 24 * HOUR)?.kid).toBe('b');
    expect(signingKeyAt(ring, 48 * HOUR)).toBeUndefined();
  });

  it('a retired key stays accepted until its last token expires, then is dropped', () => {
    const ring = [key('a', 0), key('b', 24 * HOUR)];
    expect(acceptedKeysAt(ring, 25.9 * HOUR).map((entry) => entry.kid)).toEqual(['a', 'b']);
    expect(acceptedKeysAt(ring, 26 * HOUR).map((entry) => entry.kid)).toEqual(['b']);
    expect(planRotation(ring, 26 * HOUR, POLICY)).toEqual({ drop: ['a'] });
  });

  it('after a long outage (no key signs now) a new key signs at once and the dead ones are dropped', () => {
    expect(planRotation([key('a', 0)], 100 * HOUR, POLICY)).toEqual({ add: { signFrom: 100 * HOUR, signUntil: 124 * HOUR, acceptUntil: 126 * HOUR }, drop: ['a'] });
  });
});
