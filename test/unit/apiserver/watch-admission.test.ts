import { describe, expect, it } from 'vitest';
import { WatchAdmission, WatchLimitError, watchLimitsWithDefaults } from '../../../src/apiserver/watch-admission.js';

describe('WatchAdmission', () => {
  it('admits below both caps and refuses per user first, then globally, with the retry delay', () => {
    const admission = new WatchAdmission(watchLimitsWithDefaults({ maxWatches: 3, maxWatchesPerUser: 2, retryAfterSeconds: 4 }));
    const releaseAda = admission.admit('ada');
    admission.admit('ada');
    expect(() => admission.admit('ada')).toThrow(WatchLimitError);
    try {
      admission.admit('ada');
    } catch (error: unknown) {
      expect(error).toMatchObject({ code: 429, reason: 'TooManyRequests', limit: 'per_user', details: { retryAfterSeconds: 4 } });
    }
    admission.admit('bob');
    expect(() => admission.admit('cy')).toThrow(/its limit is 3/);
    expect(admission.open).toBe(3);
    releaseAda();
    releaseAda(); // idempotent: one slot back, not two
    expect(admission.open).toBe(2);
    expect(() => admission.admit('cy')).not.toThrow();
    expect(() => admission.admit('cy')).toThrow(/limit is 3/);
  });

  it('rejects limits that are not positive integers, naming the field', () => {
    expect(() => watchLimitsWithDefaults({ maxWatches: 0 })).toThrow(/maxWatches must be a positive integer/);
    expect(() => watchLimitsWithDefaults({ maxWatchesPerUser: 1.5 })).toThrow(/maxWatchesPerUser/);
    expect(watchLimitsWithDefaults()).toEqual({ maxWatches: 1000, maxWatchesPerUser: 100, retryAfterSeconds: 1 });
  });
});
