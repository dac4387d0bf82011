import { createHash } from 'node:crypto';
import type { ObjectRef, ResourceId, StoredObject } from '../apiserver/index.js';
import type { KubeObject } from '../kube/kube-object.js';

/**
 * How one management object is kept as one Secret in the host namespace: the Secret's name, its
 * labels and annotations, and the object as JSON in one data key. Pure functions, no I/O.
 *
 * Every key vcsync owns on these Secrets is a constant here, under the prefix
 * `management.vcsync.dev/`.
 */

/** The prefix of every label and annotation key the management store owns. */
export const MANAGEMENT_KEY_PREFIX = 'management.vcsync.dev/';
/**
 * Label on every management Secret: which resource the object belongs to, as a label value
 * (see {@link resourceLabelValue}). The store's watch selects Secrets that carry it.
 */
export const RESOURCE_LABEL = `${MANAGEMENT_KEY_PREFIX}resource`;
/** Annotation: the object's resource id exactly (e.g. `management.loft.sh/v1/ownedaccesskeys`). */
export const RESOURCE_ANNOTATION = `${MANAGEMENT_KEY_PREFIX}resource`;
/** Annotation: the object's namespace (`''` for cluster-scoped objects). */
export const NAMESPACE_ANNOTATION = `${MANAGEMENT_KEY_PREFIX}namespace`;
/** Annotation: the object's name exactly (the Secret's name may be shortened and hashed). */
export const NAME_ANNOTATION = `${MANAGEMENT_KEY_PREFIX}name`;
/** The Secret `type` of management objects, so that operators and tools can tell them apart. */
export const MANAGEMENT_SECRET_TYPE = `${MANAGEMENT_KEY_PREFIX}object`;
/** The data key that holds the object as JSON (without its resourceVersion). */
export const OBJECT_DATA_KEY = 'object';

/**
 * The largest management object, in bytes of JSON: 1 MiB, what one Secret's data may hold on a
 * real cluster (kube-apiserver's `MaxSecretSize`), since each object is one Secret's data.
 */
export const MAX_MANAGEMENT_OBJECT_BYTES = 1024 * 1024;

/** Longest Secret name (a DNS subdomain). */
const MAX_SECRET_NAME = 253;
/** Longest label value. */
const MAX_LABEL_VALUE = 63;
/** Hex digits of the identity hash every Secret name ends with (60 bits). */
const HASH_DIGITS = 15;

/** The host Secret shape the store reads and writes. */
export interface ManagementSecret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

function hex(text: string, digits: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, digits);
}

/** Lowercase DNS-label characters only, runs of anything else as one `-`, no `-` at either end. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The `namespace/name` (or `name`) an object is known by inside its resource. */
export function identityKey(ref: ObjectRef): string {
  return `${ref.resource}\u0000${ref.namespace}\u0000${ref.name}`;
}

/**
 * The Secret name of one object: `<plural>-[<namespace>-]<name>-<hash>`, where the readable part
 * is shortened to fit 253 characters and the hash is of the exact (resource, namespace, name), so
 * two objects never share a Secret however their names read once slugged (`a.b` and `a-b`, the
 * same plural in two groups). Deterministic: every replica finds the same Secret.
 */
export function secretNameFor(ref: ObjectRef): string {
  const plural = ref.resource.split('/').pop() ?? ref.resource;
  const hash = hex(identityKey(ref), HASH_DIGITS);
  const readable = slug([plural, ref.namespace, ref.name].filter((part) => part !== '').join('-'));
  const room = MAX_SECRET_NAME - HASH_DIGITS - 1;
  const head = readable.slice(0, room).replace(/-+$/, '');
  return head === '' ? `m-${hash}` : `${head}-${hash}`;
}

/**
 * The {@link RESOURCE_LABEL} value of a resource: its id slugged with `.` (`management.loft.sh/v1/
 * ownedaccesskeys` → `management.loft.sh.v1.ownedaccesskeys`), or, when longer than a label value
 * may be, a shortened form ending in a hash of the id. The exact id is in {@link RESOURCE_ANNOTATION}.
 */
export function resourceLabelValue(resource: ResourceId): string {
  const dotted = resource
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '.')
    .replace(/\.{2,}/g, '.')
    .replace(/^\.+|\.+$/g, '');
  if (dotted !== '' && dotted.length <= MAX_LABEL_VALUE) return dotted;
  const hash = hex(resource, HASH_DIGITS);
  const head = dotted.slice(0, MAX_LABEL_VALUE - HASH_DIGITS - 1).replace(/\.+$/, '');
  return head === '' ? hash : `${head}.${hash}`;
}

/**
 * The Secret that stores `object` of `resource` in `namespace` (the host namespace). The object's
 * resourceVersion is left out: the Secret's own resourceVersion is the object's. `resourceVersion`
 * (the Secret's, for an update) becomes the write's precondition.
 */
export function encodeSecret(resource: ResourceId, object: StoredObject, namespace: string, resourceVersion?: string): ManagementSecret {
  const ref: ObjectRef = { resource, namespace: object.metadata.namespace ?? '', name: object.metadata.name };
  const metadata: Record<string, unknown> = { ...object.metadata };
  delete metadata['resourceVersion'];
  const json = JSON.stringify({ ...object, metadata });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretNameFor(ref),
      namespace,
      labels: { [RESOURCE_LABEL]: resourceLabelValue(resource) },
      annotations: { [RESOURCE_ANNOTATION]: resource, [NAMESPACE_ANNOTATION]: ref.namespace, [NAME_ANNOTATION]: ref.name },
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    },
    type: MANAGEMENT_SECRET_TYPE,
    data: { [OBJECT_DATA_KEY]: Buffer.from(json, 'utf8').toString('base64') },
  };
}

/** A management Secret read back: which object it holds, and the object with the Secret's resourceVersion. */
export interface DecodedSecret {
  ref: ObjectRef;
  object: StoredObject;
}

/**
 * The object a management Secret holds, with the Secret's resourceVersion as its own; a
 * description of what is wrong (for the log) when the Secret is not one this store wrote, or was
 * edited into something unreadable.
 */
export function decodeSecret(secret: ManagementSecret): DecodedSecret | { problem: string } {
  const annotations = secret.metadata?.annotations ?? {};
  const resource = annotations[RESOURCE_ANNOTATION];
  const namespace = annotations[NAMESPACE_ANNOTATION] ?? '';
  const name = annotations[NAME_ANNOTATION];
  if (resource === undefined || name === undefined) return { problem: `annotations ${RESOURCE_ANNOTATION} and ${NAME_ANNOTATION} are required` };
  const data = secret.data?.[OBJECT_DATA_KEY];
  if (data === undefined) return { problem: `data key ${JSON.stringify(OBJECT_DATA_KEY)} is missing` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
  } catch {
    return { problem: `data key ${JSON.stringify(OBJECT_DATA_KEY)} is not JSON` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { problem: 'the stored value is not a JSON object' };
  const stored = parsed as { metadata?: unknown };
  if (typeof stored.metadata !== 'object' || stored.metadata === null) return { problem: 'the stored object has no metadata' };
  const metadata = stored.metadata as Record<string, unknown>;
  if (metadata['name'] !== name || (metadata['namespace'] ?? '') !== namespace) return { problem: 'the stored object’s name or namespace differs from the annotations' };
  const resourceVersion = secret.metadata?.resourceVersion;
  const object = { ...stored, metadata: { ...metadata, name, ...(resourceVersion !== undefined ? { resourceVersion } : {}) } } as StoredObject;
  return { ref: { resource, namespace, name }, object };
}
