import { describe, expect, it } from 'vitest';
import { ApiError, statusFromHttpCode } from '../../../src/apimachinery/index.js';
import { TransportError } from '../../../src/kube/kube-errors.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { retryWhileRetryable } from '../../../src/kube/retry.js';
import { waitFor } from '../../support/wait-for.js';

const unavailable = (): ApiError => new ApiError({ httpStatus: 503, status: statusFromHttpCode(503, 'the server is shutting down'), verb: 'GET', path: '/x' });
const forbidden = (): ApiError => new ApiError({ httpStatus: 403, status: statusFromHttpCode(403, 'secrets is forbidden'), verb: 'GET', path: '/x' });

describe('retryWhileRetryable', () => {
  it('retries failures the server may get over, after growing waits, until an attempt succeeds', async () => {
    const clock = new FakeClock();
    const failures: unknown[] = [new TransportError('GET /x', new Error('socket hang up')), unavailable()];
    const waits: number[] = [];
    let attempts = 0;
    const result = retryWhileRetryable(
      async () => {
        attempts += 1;
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
        return 'done';
      },
      { signal: new AbortController().signal, clock, backoff: { jitter: 0 }, onRetry: (_error, delayMs) => waits.push(delayMs) },
    );
    await waitFor('the first wait', () => clock.pendingTimers() === 1 || undefined);
    clock.advance(500);
    await waitFor('the second wait', () => (waits.length === 2 && clock.pendingTimers() === 1) || undefined);
    clock.advance(1000);
    await expect(result).resolves.toBe('done');
    expect(attempts).toBe(3);
    expect(waits).toEqual([500, 1000]);
  });

  it('rejects at once on a refusal retrying cannot mend', async () => {
    let attempts = 0;
    const result = retryWhileRetryable(
      async () => {
        attempts += 1;
        throw forbidden();
      },
      { signal: new AbortController().signal, clock: new FakeClock(), onRetry: () => undefined },
    );
    await expect(result).rejects.toThrow('secrets is forbidden');
    expect(attempts).toBe(1);
  });

  it('resolves undefined when the signal aborts during a wait, without another attempt', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    let attempts = 0;
    const result = retryWhileRetryable(
      async () => {
        attempts += 1;
        throw unavailable();
      },
      { signal: stop.signal, clock, onRetry: () => undefined },
    );
    await waitFor('the wait', () => clock.pendingTimers() === 1 || undefined);
    stop.abort();
    await expect(result).resolves.toBeUndefined();
    expect(attempts).toBe(1);
  });
});
