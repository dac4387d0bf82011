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
  // A write of a term that ended is refused as a rejected promise, like any failed call. Not async
  // functions: one per synced object, each would add a promise and two turns to the write path.
  const refused = <T>(): Promise<T> => Promise.reject(new LeadershipEndedError());
  return {
    list: (path, options) => client.list(path, options),
    watch: (path, options) => client.watch(path, options),
    get: (path, options) => client.get(path, withSignal(options)),
    create: (path, body, options) => (term.holdsLease() ? client.create(path, body, withSignal(options)) : refused()),
    update: (path, body, options) => (term.holdsLease() ? client.update(path, body, withSignal(options)) : refused()),
    delete: (path, options) => (term.holdsLease() ? client.delete(path, withSignal(options)) : refused()),
  };
}
