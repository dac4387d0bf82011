import type { Status } from '../apimachinery/index.js';

/**
 * The small slice of the Kubernetes object model that the plumbing in `src/kube/` relies on.
 * Callers type their own resources on top of {@link KubeObject}; everything here only reads
 * `metadata`, so any object the API server returns fits.
 */

/** Owner, labels and bookkeeping fields every Kubernetes object carries under `metadata`. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  /** Opaque version string: compare for equality only, never numerically. */
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [field: string]: unknown;
}

/** Any Kubernetes object: `apiVersion`, `kind` and `metadata`, plus fields the caller types. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list as returned by a collection GET: items, and the list's resourceVersion and continue token. */
export interface KubeList<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** The four kinds of change a watch stream reports, plus ERROR. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One line of a watch stream. For `ERROR` the object is a {@link Status}. */
export type WatchEvent<T extends KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };
