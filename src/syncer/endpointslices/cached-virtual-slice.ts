import type { NamedTransform } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { withoutManagedFields } from '../../kube/object-transforms.js';
import type { EndpointConditions, EndpointSlice, SliceEndpoint, SlicePort } from './endpointslice-types.js';

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

/** Distinct port lists {@link sharedPorts} keeps; when full it starts over (what is cached keeps its lists). */
const MAX_SHARED_PORT_LISTS = 4096;

/** The longest list {@link sharedPorts} keeps, in characters of JSON: the table holds at most ~2 MiB of text. */
const MAX_SHARED_PORTS_TEXT = 512;

/** Frozen port lists by their JSON: the first list of each text seen, copied. */
const sharedPortLists = new Map<string, readonly Readonly<SlicePort>[]>();

/**
 * A frozen list equal to `ports` (the same ports, fields, values and order), one per distinct
 * list: most slices of a cluster name one of a few port lists (`http` 80/TCP), 100 bytes a slice
 * for a list of one port. `undefined` when a port holds anything but strings and numbers (a field
 * of a later API version) or the list's JSON is longer than {@link MAX_SHARED_PORTS_TEXT}: such a
 * list is kept as it is. The input is not modified. Bounded, whatever a tenant writes: past
 * {@link MAX_SHARED_PORT_LISTS} distinct lists the table starts over.
 */
export function sharedPorts(ports: readonly SlicePort[]): readonly Readonly<SlicePort>[] | undefined {
  for (const port of ports) {
    if (port === null || typeof port !== 'object' || Array.isArray(port)) return undefined;
    for (const value of Object.values(port)) if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  }
  const text = JSON.stringify(ports);
  if (text.length > MAX_SHARED_PORTS_TEXT) return undefined;
  const kept = sharedPortLists.get(text);
  if (kept !== undefined) return kept;
  if (sharedPortLists.size >= MAX_SHARED_PORT_LISTS) sharedPortLists.clear();
  const copy = Object.freeze(ports.map((port) => Object.freeze({ ...port })));
  sharedPortLists.set(text, copy);
  return copy;
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
 * a slice of three; and its ports a shared frozen list ({@link sharedPorts}). Readers see the same
 * fields and values; the cache's objects are read-only to them already (the freeze makes a write
 * throw instead of changing every slice). The input is not modified.
 */
export function cachedVirtualSlice(slice: EndpointSlice): EndpointSlice {
  const trimmed = withoutManagedFields(slice);
  const endpoints = trimmed.endpoints;
  const ports = Array.isArray(trimmed.ports) && trimmed.ports.length > 0 ? sharedPorts(trimmed.ports) : undefined;
  const hasEndpoints = Array.isArray(endpoints) && endpoints.length > 0;
  if (!hasEndpoints && ports === undefined) return trimmed;
  // A spread copy keeps the slice's layout; assigning over its own fields keeps it too.
  const cached = { ...trimmed };
  if (hasEndpoints) cached.endpoints = endpoints.map(withSharedConditions);
  // The cache's slices are read-only: a shared list is typed as the slice's own.
  if (ports !== undefined) cached.ports = ports as SlicePort[];
  return cached;
}

/** {@link cachedVirtualSlice} as the virtual slices informer's transform. */
export const VIRTUAL_SLICE: NamedTransform = Object.freeze({
  name: 'virtual-slice',
  // The informer of virtual slices caches slices: the object is one, typed as the cache's T.
  apply: <T extends KubeObject>(object: T): T => cachedVirtualSlice(object as EndpointSlice) as T,
  // A slice has no other field of that name: list pages are parsed without them, so a listed
  // slice keeps the metadata JSON.parse built (copying it without the field cost a property array).
  dropsManagedFields: true,
});
