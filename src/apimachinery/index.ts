/**
 * The layer under both sides of the Kubernetes API (the REST client in kube/, the server core in
 * apiserver/) and the logic folders: JSON values, their equality and freezing, and the Status
 * error type with its reason catalogue. Imports no other folder of vcsync.
 */
export * from './api-error.js';
export * from './deep-freeze.js';
export * from './json-equal.js';
export * from './json-value.js';
export * from './status.js';
export * from './status-errors.js';
export * from './status-predicates.js';
export * from './status-reason.js';
