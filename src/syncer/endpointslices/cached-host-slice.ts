import type { NamedTransform } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { cachedHostCopy } from '../host-copy-cache.js';
import type { EndpointSlice } from './endpointslice-types.js';

/**
 * What the host cache keeps of a host slice: the host copy as every host cache keeps it
 * ({@link cachedHostCopy}: metadata, and the body or its digest) plus `addressType` even without
 * the body, because a changed addressType decides between an update and a delete and create
 * before anything is read. The input is not modified.
 */
export function cachedHostSlice(slice: EndpointSlice, keepBody: boolean): EndpointSlice {
  const copy = cachedHostCopy(slice, keepBody);
  if (keepBody || slice.addressType === undefined) return copy;
  return { ...copy, addressType: slice.addressType };
}

/** {@link cachedHostSlice} as the host slices informer's transform, keeping bodies while `keepBodies()` says so. */
export function hostSliceTransform(keepBodies: () => boolean): NamedTransform {
  return {
    name: 'host-slice-copy',
    // The informer of host slices caches slices: the object is one, typed as the cache's T.
    apply: <T extends KubeObject>(object: T): T => cachedHostSlice(object as EndpointSlice, keepBodies()) as T,
  };
}
