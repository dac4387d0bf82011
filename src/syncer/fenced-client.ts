import { LeadershipEndedError } from '../kube/kube-errors.js';
import type { LeaderTerm } from '../kube/leader-elector.js';
import type { ListerWatcher } from '../kube/reflector.js';
import type { CallOptions } from '../kube/rest-client.js';
import type { ClusterWriter } from './to-host-controller.js';

/** The client calls a syncer makes on one cluster: its informers' lists and watches, and its reads and writes. */
export type SyncClient = ListerWatcher & ClusterWriter;

/**
 * `client` for the leader-gated work of one term: every write first checks `term.holdsLease()`
 * and is refused with a {@link LeadershipEndedError} once it answers false, and every read and
 * write carries the term's signal, so that requests in flight (and those waiting for the rate
 * limiter) are aborted when the term ends. Lists and watches pass through: informers stop on
 * their own signal. The leader thus issues no write after its renew deadline, which comes before
 * another replica can take the Lease.
 */
export function fencedClient(client: SyncClient, term: LeaderTerm): SyncClient {
  const withSignal = (options: CallOptions | undefined): CallOptions => ({
    ...options,
    signal: options?.signal === undefined ? term.signal : AbortSignal.any([options.signal, term.signal]),
  });
  const fenced = <O extends CallOptions>(options: O | undefined): O => {
    if (!term.holdsLease()) throw new LeadershipEndedError();
    return withSignal(options) as O;
  };
  return {
    list: (path, options) => client.list(path, options),
    watch: (path, options) => client.watch(path, options),
    get: (path, options) => client.get(path, withSignal(options)),
    create: async (path, body, options) => client.create(path, body, fenced(options)),
    update: async (path, body, options) => client.update(path, body, fenced(options)),
    delete: async (path, options) => client.delete(path, fenced(options)),
  };
}
