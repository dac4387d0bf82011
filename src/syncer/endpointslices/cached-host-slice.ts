import type { NamedTransform } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { cachedHostCopy, hostSharedValues } from '../host-copy-cache.js';
import type { SharedMetadataValues } from '../shared-metadata-values.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { LABEL_SLICE_MANAGED_BY } from './slice-keys.js';

/**
 * What the host cache keeps of a host slice: the host copy as every host cache keeps it
 * ({@link cachedHostCopy}: metadata, and the body or its digest) plus `addressType` even without
 * the body, because a changed addressType decides between an update and a delete and create
 * before anything is read. `shared`: as {@link cachedHostCopy}'s. The input is not modified.
 */
export function cachedHostSlice(slice: EndpointSlice, keepBody: boolean, shared?: SharedMetadataValues): EndpointSlice {
  const copy = cachedHostCopy(slice, keepBody, shared);
  if (keepBody || slice.addressType === undefined) return copy;
  return { ...copy, addressType: slice.addressType };
}

/**
 * {@link cachedHostSlice} as the host slices informer's transform, keeping bodies while
 * `keepBodies()` says so, sharing the values every host copy shares and vcsync's
 * `endpointslice.kubernetes.io/managed-by` value.
 */
export function hostSliceTransform(keepBodies: () => boolean): NamedTransform {
  const shared = hostSharedValues([LABEL_SLICE_MANAGED_BY]);
  return {
    name: 'host-slice-copy',
    // The informer of host slices caches slices: the object is one, typed as the cache's T.
    apply: <T extends KubeObject>(object: T): T => cachedHostSlice(object as EndpointSlice, keepBodies(), shared) as T,
    dropsManagedFields: true,
  };
}
