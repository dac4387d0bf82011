import type { NamedTransform } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { withoutManagedFields } from '../../kube/object-transforms.js';
import type { EndpointConditions, EndpointSlice, SliceEndpoint } from './endpointslice-types.js';

/** The fields of an endpoint's conditions, in the order the API server writes them. */
const CONDITION_FIELDS = ['ready', 'serving', 'terminating'] as const;

/**
 * Every conditions object of boolean fields written in the API server's order, frozen: three
 * states per field (absent, false, true), the object of state code Σ state(field i) · 3^i.
 */
const SHARED_CONDITIONS: readonly Readonly<EndpointConditions>[] = Array.from({ length: 3 ** CONDITION_FIELDS.length }, (_, code) => {
  const conditions: EndpointConditions = {};
  let rest = code;
  for (const field of CONDITION_FIELDS) {
    const state = rest % 3;
    rest = Math.floor(rest / 3);
    if (state > 0) conditions[field] = state === 2;
  }
  return Object.freeze(conditions);
});

/**
 * The shared frozen object equal to `conditions` (the same fields, values and field order), or
 * `undefined` when it holds anything else (a field of a later API version, a non-boolean value):
 * such a conditions object is kept as it is.
 */
export function sharedConditions(conditions: EndpointConditions): Readonly<EndpointConditions> | undefined {
  let code = 0;
  let next = 0;
  for (const [field, value] of Object.entries(conditions)) {
    const at = CONDITION_FIELDS.indexOf(field as (typeof CONDITION_FIELDS)[number], next);
    if (at < 0 || typeof value !== 'boolean') return undefined;
    code += (value ? 2 : 1) * 3 ** at;
    next = at + 1;
  }
  return SHARED_CONDITIONS[code];
}

function withSharedConditions(endpoint: SliceEndpoint): SliceEndpoint {
  const conditions = endpoint.conditions === undefined ? undefined : sharedConditions(endpoint.conditions);
  return conditions === undefined ? endpoint : { ...endpoint, conditions };
}

/**
 * What the virtual slices cache keeps of a slice: the whole slice but for `managedFields`
 * ({@link withoutManagedFields}; translation, patches and reverse sync read the rest), with each
 * endpoint's conditions one of a few shared frozen objects ({@link sharedConditions}) instead of
 * an object per endpoint: nearly every endpoint's conditions are one of a handful of values
 * (`{ ready: true, serving: true, terminating: false }`), 32 bytes each for the three endpoints of
 * a slice of three. Readers see the same fields and values; the cache's objects are read-only to
 * them already (the freeze makes a write throw instead of changing every slice). The input is not
 * modified.
 */
export function cachedVirtualSlice(slice: EndpointSlice): EndpointSlice {
  const trimmed = withoutManagedFields(slice);
  const endpoints = trimmed.endpoints;
  if (!Array.isArray(endpoints) || endpoints.length === 0) return trimmed;
  return { ...trimmed, endpoints: endpoints.map(withSharedConditions) };
}

/** {@link cachedVirtualSlice} as the virtual slices informer's transform. */
export const VIRTUAL_SLICE: NamedTransform = Object.freeze({
  name: 'virtual-slice',
  // The informer of virtual slices caches slices: the object is one, typed as the cache's T.
  apply: <T extends KubeObject>(object: T): T => cachedVirtualSlice(object as EndpointSlice) as T,
});
