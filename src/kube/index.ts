/**
 * Kubernetes plumbing: cluster connections and a JSON REST client, reflector + informer cache,
 * layered work queue with rate limiters, Lease leader election, an aggregating event recorder,
 * and their metrics. Knows nothing of the syncer or the management API.
 */
export * from './kube-errors.js';
export * from './api-path.js';
export * from './backoff.js';
export * from './cache-store.js';
export * from './clock.js';
export * from './delaying-queue.js';
export * from './event-recorder.js';
export * from './fake-clock.js';
export * from './informer.js';
export * from './kube-config.js';
export * from './kube-object.js';
export * from './leader-elector.js';
export * from './metrics.js';
export * from './object-key.js';
export * from './object-transforms.js';
export * from './rate-limiters.js';
export * from './rate-limiting-queue.js';
export * from './reflector.js';
export * from './rest-client.js';
export * from './token-bucket.js';
export * from './watch-line-decoder.js';
export * from './watch-stream.js';
export * from './work-queue.js';
