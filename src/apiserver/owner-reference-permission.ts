/**
 * The real server's OwnerReferencesPermissionEnforcement admission, the part about
 * `blockOwnerDeletion`: a write that newly sets `blockOwnerDeletion: true` on an owner reference
 * is admitted only when the writer may update the finalizers of that owner (setting it can hold
 * the owner's foreground deletion, so it is a right over the owner, not over the dependent).
 * The answer is 422 Invalid naming the field, as the management API's error table and the field's
 * OpenAPI description say; the real plugin answers 403 Forbidden. The cause carries the real
 * server's words.
 */
import { type ApiError, invalid, isJsonObject, type JsonObject } from '../apimachinery/index.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';
import type { StoredObject } from './storage.js';

/** The owner an owner reference names, as the core resolved it for the authorizer. */
export interface ReferencedOwner {
  /** The served resource of the reference's apiVersion and kind. */
  type: ResourceType;
  /** The dependent's namespace for namespaced owners (an owner lives beside its dependent), else ''. */
  namespace: string;
  name: string;
  uid: string;
  /** The stored owner of that name, or undefined when there is none. */
  object: StoredObject | undefined;
}

/** Whether the writer may update the finalizers of `owner`: undefined when it may, else why not. */
export type OwnerFinalizersCheck = (owner: ReferencedOwner) => Promise<string | undefined>;

interface BlockingReference {
  /** Its position in `metadata.ownerReferences`. */
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

function ownerReferencesOf(object: JsonObject | undefined): JsonObject[] {
  const metadata = object?.['metadata'];
  const references = isJsonObject(metadata) ? metadata['ownerReferences'] : undefined;
  return Array.isArray(references) ? references.filter(isJsonObject) : [];
}

/**
 * The owner references of `object` with `blockOwnerDeletion: true` that `old` (the stored object
 * on update) did not already block with: new references, and those switched from false or unset
 * to true (`newBlockingOwnerDeletionRefs` of the real plugin, matched by uid). A pure function.
 */
export function newlyBlockingOwnerReferences(object: JsonObject, old: JsonObject | undefined): BlockingReference[] {
  const blockedBefore = new Set(ownerReferencesOf(old).filter((reference) => reference['blockOwnerDeletion'] === true).map((reference) => String(reference['uid'])));
  return ownerReferencesOf(object)
    .map((reference, index) => ({ reference, index }))
    .filter(({ reference }) => reference['blockOwnerDeletion'] === true && !blockedBefore.has(String(reference['uid'])))
    .map(({ reference, index }) => ({ index, apiVersion: String(reference['apiVersion'] ?? ''), kind: String(reference['kind'] ?? ''), name: String(reference['name'] ?? ''), uid: String(reference['uid'] ?? '') }));
}

/** What {@link enforceBlockOwnerDeletionPermission} checks. */
export interface BlockOwnerDeletionAdmission {
  registry: ResourceRegistry;
  /** Reads the owner of a reference (undefined when it does not exist). */
  read: (type: ResourceType, namespace: string, name: string) => Promise<StoredObject | undefined>;
  /** The resource written to, and its namespace ('' for cluster-scoped). */
  type: ResourceType;
  namespace: string;
  /** The object a write would store, and the stored one on update. */
  object: JsonObject;
  old: JsonObject | undefined;
  mayUpdateFinalizers: OwnerFinalizersCheck;
}

/**
 * Refuses (422 Invalid on `metadata.ownerReferences[i].blockOwnerDeletion`, the real plugin's message) a write that newly sets `blockOwnerDeletion`
 * on a reference to an owner the writer may not update the finalizers of, or to a kind the server
 * does not serve (it cannot tell who may).
 */
export async function enforceBlockOwnerDeletionPermission(admission: BlockOwnerDeletionAdmission): Promise<void> {
  const { registry, type, namespace, object, old } = admission;
  const references = newlyBlockingOwnerReferences(object, old);
  if (references.length === 0) return;
  const metadata = object['metadata'];
  const name = isJsonObject(metadata) ? String(metadata['name'] || metadata['generateName'] || '') : '';
  const refusal = (index: number, why: string): ApiError =>
    invalid(type.kind, type.group, name, [{ reason: 'FieldValueForbidden', field: `metadata.ownerReferences[${index}].blockOwnerDeletion`, message: `Forbidden: ${why}` }]);
  for (const reference of references) {
    const slash = reference.apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : reference.apiVersion.slice(0, slash);
    const version = reference.apiVersion.slice(slash + 1);
    const ownerType = registry.types.find((candidate) => candidate.group === group && candidate.version === version && candidate.kind === reference.kind);
    if (ownerType === undefined) {
      throw refusal(reference.index, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${reference.apiVersion} Kind ${reference.kind}: no matches for kind "${reference.kind}" in version "${reference.apiVersion}"`);
    }
    const ownerNamespace = ownerType.namespaced ? namespace : '';
    const owner: ReferencedOwner = {
      type: ownerType,
      namespace: ownerNamespace,
      name: reference.name,
      uid: reference.uid,
      object: await admission.read(ownerType, ownerNamespace, reference.name),
    };
    const refused = await admission.mayUpdateFinalizers(owner);
    // The real plugin prints the authorizer's reason and its (here always absent) error.
    if (refused !== undefined) throw refusal(reference.index, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${refused}, <nil>`);
  }
}
