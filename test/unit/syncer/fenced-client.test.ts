import { describe, expect, it } from 'vitest';
import { LeadershipEndedError } from '../../../src/kube/kube-errors.js';
import type { KubeList } from '../../../src/kube/kube-object.js';
import type { CallOptions } from '../../../src/kube/rest-client.js';
import type { WatchStream } from '../../../src/kube/watch-stream.js';
import { fencedClient, type SyncClient } from '../../../src/syncer/fenced-client.js';

/** A client that records each call and its signal, and answers only when that signal aborts (a request in flight). */
function hangingClient(): { client: SyncClient; calls: Array<{ verb: string; signal: AbortSignal | undefined }> } {
  const calls: Array<{ verb: string; signal: AbortSignal | undefined }> = [];
  const hang = <T>(verb: string, options?: CallOptions): Promise<T> => {
    calls.push({ verb, signal: options?.signal });
    return new Promise<T>((_, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true }));
  };
  return {
    calls,
    client: {
      list: () => Promise.resolve({ items: [], metadata: {} } as unknown as KubeList<never>),
      watch: () => Promise.reject(new Error('no watch')) as Promise<WatchStream<never>>,
      get: (_path, options) => hang('get', options),
      create: (_path, _body, options) => hang('create', options),
      update: (_path, _body, options) => hang('update', options),
      delete: (_path, options) => hang('delete', options),
    },
  };
}

describe('fencedClient: the writes of one leadership term', () => {
  it('refuses every write once the term no longer holds the Lease, before its signal fired, without sending it', async () => {
    const { client, calls } = hangingClient();
    let holds = true;
    const term = { signal: new AbortController().signal, holdsLease: () => holds };
    const fenced = fencedClient(client, term);
    holds = false;
    for (const write of [() => fenced.create('/x', {}), () => fenced.update('/x', {}), () => fenced.delete('/x')]) {
      const error = await write().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LeadershipEndedError);
      expect((error as LeadershipEndedError).code).toBe('KUBE_LEADERSHIP_ENDED');
    }
    expect(calls).toEqual([]);
  });

  it('aborts writes and reads in flight when the term ends, with the reason the term gave, also when the caller passed its own signal', async () => {
    const { client } = hangingClient();
    const ending = new AbortController();
    const fenced = fencedClient(client, { signal: ending.signal, holdsLease: () => !ending.signal.aborted });
    const own = new AbortController();
    const inFlight = [fenced.create('/x', {}), fenced.update('/x', {}, { signal: own.signal }), fenced.delete('/x'), fenced.get('/x')].map((call) => call.catch((caught: unknown) => caught));
    const reason = new LeadershipEndedError('the renew deadline passed');
    ending.abort(reason);
    expect(await Promise.all(inFlight)).toEqual([reason, reason, reason, reason]);
  });
});
