import { randomBytes, randomUUID } from 'node:crypto';
import { alreadyExists, ApiError, badRequest, conflict, type ErrorSubject, expired, generatedNameConflict, invalid, isJsonObject, jsonEqual, type JsonObject, notFound, type StatusCause } from '../apimachinery/index.js';
import { applyPatch, type PatchMediaType } from './apply-patch.js';
import { finalizersForPropagation, type PropagationPolicy } from './deletion-propagation.js';
import { pruneUnknownFields, type FieldValidation } from './field-validation.js';
import { isDateTime, schemaTypeViolations } from './schema-types.js';
import { jsonByteLength } from './json-size.js';
import { generationOnCreate, generationOnUpdate } from './generation.js';
import type { WriteContext } from './kind-strategy.js';
import type { CreateAdmission } from './create-admission.js';
import { fieldSchemaOf, updateManagedFields } from './managed-fields.js';
import { invalidValue, validateObjectMeta } from './metadata-validation.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { ResourceType } from './resource-type.js';
import type { Subresource } from './subresource.js';
import { applyConfiguration, assertAppliedKind } from './server-side-apply.js';
import { StorageError, type ObjectRef, type Preconditions, type Storage, type StoredObject } from './storage.js';

/** Options shared by every write. */
export interface WriteOptions {
  /** `dryRun=All`: validate and answer the result without storing anything. */
  dryRun: boolean;
  /** How fields the kind's schema does not know, and duplicate JSON fields, are handled. Default `Warn` (dropped). */
  fieldValidation?: FieldValidation;
  /** Receives one message per dropped unknown or duplicate field under `Warn`. Default: discarded. */
  warn?: (message: string) => void;
  /** The manager recorded in `metadata.managedFields` (`fieldManager`, else from the User-Agent). Default `unknown`. */
  fieldManager?: string;
  /**
   * Per-request admission of the object a create, update, patch or apply would store (`old` is the
   * stored one on update): throws an `ApiError` to refuse, e.g. a write that gives the object away.
   */
  admit?: (object: JsonObject, old: JsonObject | undefined) => void | Promise<void>;
  /** Who writes, for the kind's strategy (a CSR records its requester). Default: the server itself. */
  user?: AuthenticatedUser | undefined;
}

/** Options of a server-side apply. */
export interface ApplyOptions extends WriteOptions {
  /** `force=true`: take fields other managers own over instead of answering 409. */
  force: boolean;
}

/** A write inside the writer: of a subresource, or one whose managedFields an apply computed. */
interface InternalWriteOptions extends WriteOptions {
  subresource?: Subresource | undefined;
  /** The object's `metadata.managedFields` are the apply's, not to be recomputed as an Update. */
  applied?: boolean;
}

/** Options of a DELETE. */
export interface DeleteOptions extends WriteOptions {
  /** DeleteOptions.preconditions: the delete fails with 409 unless they hold. */
  preconditions?: Preconditions;
  /** DeleteOptions.propagationPolicy (or orphanDependents); undefined: the kind's default (Background). */
  propagationPolicy?: PropagationPolicy;
}

/** The result of a DELETE. */
export interface DeleteResult {
  /** The object as deleted, or as marked for deletion when finalizers keep it. */
  object: StoredObject;
  /** False when finalizers keep the object (it only got a deletionTimestamp). */
  removed: boolean;
}

/** What {@link ObjectWriter} works on. */
export interface ObjectWriterInit {
  storage: Storage;
  /** Admits creates after validation (e.g. only into live namespaces). Default: every create. */
  admission?: CreateAdmission | undefined;
  /** Wall clock in ms since the epoch (timestamps). */
  now: () => number;
  /**
   * The largest object stored, in bytes of compact JSON: larger ones are refused 413 before they
   * are stored, and under `dryRun` too. Default {@link MAX_OBJECT_BYTES} (etcd's request limit).
   */
  maxObjectBytes?: number | undefined;
}

/**
 * The largest object the writer stores by default: 1.5 MiB as JSON, etcd's default request limit
 * (`--max-request-bytes`), past which a real cluster cannot store it either.
 */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** Characters of generated name suffixes, as Kubernetes uses (no vowels, no look-alikes). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_NAME_LENGTH = 63;
const PATCH_RETRIES = 5;
/** Names tried for one create from generateName (the real server's RetryGenerateName: 1 + 7 retries). */
const GENERATE_NAME_ATTEMPTS = 8;

/** RFC 3339 in UTC with seconds precision, like Kubernetes' metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `prefix` + a random 5-character suffix, the prefix truncated so the name fits 63 characters. */
export function generateName(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = '';
  for (const byte of bytes) suffix += SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length];
  return `${prefix.slice(0, MAX_GENERATED_NAME_LENGTH - 5)}${suffix}`;
}

function subjectOf(type: ResourceType, name: string): ErrorSubject {
  return { group: type.group, resource: type.plural, name };
}

/** Maps a storage failure to the Status the real server answers; other errors pass through. */
export function storeFailure(error: unknown, type: ResourceType, name: string): unknown {
  if (!(error instanceof StorageError)) return error;
  switch (error.code) {
    case 'NotFound':
      return notFound(subjectOf(type, name));
    case 'AlreadyExists':
      return alreadyExists(subjectOf(type, name));
    case 'Conflict':
      return conflict(subjectOf(type, name));
    case 'Expired':
    case 'InvalidResourceVersion':
      return resourceVersionFailure(error);
    case 'Closed':
      return new ApiError('ServiceUnavailable', `the server is shutting down: ${error.message}`, undefined, { cause: error });
  }
}

/**
 * A storage's refusal of the resourceVersion a client sent, as the Status the real server answers
 * (410 Expired, 400 BadRequest, with the storage's message); other errors pass through.
 */
export function resourceVersionFailure(error: unknown): unknown {
  if (!(error instanceof StorageError)) return error;
  if (error.code === 'Expired') return expired(error.message);
  if (error.code === 'InvalidResourceVersion') return badRequest(error.message);
  return error;
}

function finalizersOf(metadata: JsonObject): string[] {
  const finalizers = metadata['finalizers'];
  return Array.isArray(finalizers) ? finalizers.filter((finalizer): finalizer is string => typeof finalizer === 'string') : [];
}

/** A write computed from a possibly lagging read came out a no-op: compute it again on the latest read. */
class StaleRead extends Error {
  readonly type: ResourceType;
  constructor(type: ResourceType) {
    super(`a write of ${type.plural} was computed from a read that may lag`);
    this.name = 'StaleRead';
    this.type = type;
  }
}

function isReason(error: unknown, reason: string): boolean {
  return error instanceof ApiError && error.reason === reason;
}

function withoutVersion(object: JsonObject): JsonObject {
  const metadata = isJsonObject(object['metadata']) ? { ...object['metadata'] } : {};
  delete metadata['resourceVersion'];
  return { ...object, metadata };
}

/**
 * The generic registry store: the Kubernetes write rules on top of a {@link Storage}, like
 * k8s.io/apiserver's registry store. Identity and type checks, unknown fields, metadata
 * validation, uid/generation/creationTimestamp/generateName, optimistic concurrency, finalizers and
 * deletionTimestamp are the same for every kind; each kind adds defaults, validation and
 * lifecycle hooks through its {@link ResourceType.strategy}, and creates pass the server's
 * {@link CreateAdmission}. Every failure is an {@link ApiError}. Objects returned are the
 * storage's objects (frozen by the devcluster's).
 */
export class ObjectWriter {
  readonly #storage: Storage;
  readonly #admission: CreateAdmission | undefined;
  readonly #now: () => number;
  readonly #maxObjectBytes: number;

  /** Does no I/O. */
  constructor(init: ObjectWriterInit) {
    this.#storage = init.storage;
    this.#admission = init.admission;
    this.#now = init.now;
    this.#maxObjectBytes = init.maxObjectBytes ?? MAX_OBJECT_BYTES;
  }

  /**
   * The stored object, or a 404. A storage whose `get` may come from a lagging cache is read again
   * at its latest before the 404 (the real registry reads storage): an object its own replica just
   * created and its watch has not reported yet is found, so a DELETE's ownership check does not
   * answer 404 for it.
   */
  async get(type: ResourceType, namespace: string, name: string): Promise<StoredObject> {
    const ref = this.#refOf(type, namespace, name);
    const object = (await this.#storage.get(ref)) ?? (await this.#storage.getLatest?.(ref));
    if (object === undefined) throw notFound(subjectOf(type, name));
    return object;
  }

  /** Creates `body` in `namespace` ('' for cluster-scoped types). */
  async create(type: ResourceType, namespace: string, body: unknown, options: WriteOptions): Promise<StoredObject> {
    // As the real server's storage: a create is not conditional, so a resourceVersion is a client error, not ignored.
    const version = isJsonObject(body) && isJsonObject(body['metadata']) ? body['metadata']['resourceVersion'] : undefined;
    if (version !== undefined && version !== null && version !== '') throw badRequest('resourceVersion should not be set on objects to be created');
    return this.#create(type, namespace, body, options);
  }

  async #create(type: ResourceType, namespace: string, body: unknown, options: InternalWriteOptions): Promise<StoredObject> {
    const object = this.#checkBody(type, body, options);
    const metadata = { ...(object['metadata'] as JsonObject) };
    const requestedManagedFields = metadata['managedFields'];
    this.#checkNamespace(type, namespace, metadata);
    // Admission names the object as the client did: by its generateName while it has no name.
    const admittedName = String(metadata['name'] || metadata['generateName'] || '');
    let generatedFrom: string | undefined;
    if (typeof metadata['name'] !== 'string' || metadata['name'] === '') {
      const prefix = metadata['generateName'];
      if (typeof prefix === 'string' && prefix !== '') {
        generatedFrom = prefix;
        metadata['name'] = generateName(prefix);
      }
    }
    const generation = generationOnCreate(type.generation, metadata['generation']);
    for (const field of ['resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'selfLink', 'managedFields']) {
      delete metadata[field];
    }
    metadata['uid'] = randomUUID();
    metadata['creationTimestamp'] = rfc3339(this.#now());
    if (generation !== undefined) metadata['generation'] = generation;
    object['metadata'] = metadata;
    const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
    this.#validate(type, object, undefined, { user: options.user });
    await options.admit?.(object, undefined);
    const reveal = type.strategy.seal?.(object, undefined);
    this.#trackFields(type, undefined, object, requestedManagedFields, options);
    this.#allocate(type, object, undefined);
    this.#checkSize(type, object);
    // Held from validation on: what defaulting took (a cluster IP) stays taken until the write settled.
    const stored = await this.#reserved(type, object, async () => {
      await this.#admission?.admitCreate(type, namespace, admittedName);
      if (options.dryRun) {
        if ((await this.#storage.get({ resource: type.id, namespace, name })) !== undefined) throw alreadyExists(subjectOf(type, name));
        return object as StoredObject;
      }
      return this.#store(type, object as StoredObject, generatedFrom);
    });
    return reveal === undefined ? stored : (reveal(structuredClone(stored) as JsonObject) as StoredObject);
  }

  /**
   * Stores a new object. One named from `generatedFrom` (its generateName) gets a new name when
   * the generated one is taken, {@link GENERATE_NAME_ATTEMPTS} names in all, as the real server's
   * RetryGenerateName; then 409 AlreadyExists saying no unique name was found.
   */
  async #store(type: ResourceType, object: StoredObject, generatedFrom: string | undefined): Promise<StoredObject> {
    let candidate = object;
    for (let attempt = 1; ; attempt += 1) {
      const name = candidate.metadata.name;
      try {
        return await this.#storage.create(type.id, candidate);
      } catch (error: unknown) {
        const taken = error instanceof StorageError && error.code === 'AlreadyExists';
        if (!taken || generatedFrom === undefined) throw storeFailure(error, type, name);
        if (attempt >= GENERATE_NAME_ATTEMPTS) throw generatedNameConflict(subjectOf(type, name));
        candidate = { ...candidate, metadata: { ...candidate.metadata, name: generateName(generatedFrom) } };
      }
    }
  }

  /**
   * The create of a kind that is not stored (`type.procedure`): the body passes the checks of a
   * create (type, namespace, unknown fields, the kind's defaulting and validation, 400/422), then
   * the procedure answers. Nothing is written.
   */
  async perform(
    type: ResourceType,
    namespace: string,
    body: unknown,
    options: WriteOptions & { user: AuthenticatedUser | undefined; target?: { namespace: string; name: string } },
  ): Promise<JsonObject> {
    const procedure = type.procedure;
    if (procedure === undefined) throw new TypeError(`${type.plural} is a stored kind: create it with create(), not perform()`);
    const object = this.#checkBody(type, body, options);
    const metadata = object['metadata'] as JsonObject;
    this.#checkNamespace(type, namespace, metadata);
    // As for the real server's TokenReview, the object needs no name: it is never stored.
    this.#validate(type, object, undefined, { user: options.user }, { stored: false });
    return procedure({ object, user: options.user, dryRun: options.dryRun, ...(options.target !== undefined ? { target: options.target } : {}) });
  }

  /** PUT of the object (or of one of its subresources). `created` tells a create-on-update. */
  async update(
    type: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    options: WriteOptions & { subresource?: Subresource | undefined },
  ): Promise<{ object: StoredObject; created: boolean }> {
    const object = this.#checkBody(type, body, options);
    const metadata = object['metadata'] as JsonObject;
    if (metadata['name'] === undefined || metadata['name'] === '') throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
    this.#checkIdentity(type, namespace, name, metadata);
    const version = metadata['resourceVersion'];
    const conditional = typeof version === 'string' && version !== '';
    // Without a resourceVersion the PUT is unconditional: a concurrent write is retried, not reported.
    const retry = (error: unknown): boolean => !conditional && isReason(error, 'Conflict');
    return this.#guaranteed(this.#refOf(type, namespace, name), retry, async (current, latest) => {
      if (current === undefined) {
        if (!type.allowCreateOnUpdate || options.subresource !== undefined || conditional) throw notFound(subjectOf(type, name));
        return { object: await this.#create(type, namespace, object, options), created: true };
      }
      if (conditional && version !== current.metadata.resourceVersion) throw conflict(subjectOf(type, name));
      // A uid in the body is a precondition (rest.DefaultUpdatedObjectInfo), not a field to change.
      const uid = metadata['uid'];
      if (typeof uid === 'string' && uid !== '' && uid !== current.metadata.uid) {
        throw conflict(subjectOf(type, name), `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(current.metadata.uid)}`);
      }
      const stored = await this.#replace(type, current, object, options, { resourceVersion: current.metadata.resourceVersion ?? '' }, latest);
      return { object: stored, created: false };
    });
  }

  /** PATCH of the object (or of one of its subresources); retried on concurrent writes. */
  async patch(
    type: ResourceType,
    namespace: string,
    name: string,
    mediaType: PatchMediaType,
    patch: unknown,
    options: WriteOptions & { subresource?: Subresource | undefined },
  ): Promise<StoredObject> {
    // The patched object carries the resourceVersion of the object it was applied to, unless the
    // patch set another: that one is the client's precondition, and its conflict is the client's to
    // handle. Any other conflict is a write that landed between this read and this write (another
    // client, or the server's own bookkeeping such as an access key's lastActivity): the patch is
    // applied again to the latest object, as the real server's GuaranteedUpdate does.
    let preconditionFailed = false;
    const retry = (error: unknown): boolean => !preconditionFailed && isReason(error, 'Conflict');
    return this.#guaranteed(this.#refOf(type, namespace, name), retry, async (current, latest) => {
      if (current === undefined) throw notFound(subjectOf(type, name));
      const patched = applyPatch(mediaType, type.mergeStrategies, structuredClone(current) as JsonObject, patch);
      const metadata = isJsonObject(patched['metadata']) ? patched['metadata'] : {};
      patched['metadata'] = metadata;
      const version = metadata['resourceVersion'];
      if (typeof version === 'string' && version !== '' && version !== current.metadata.resourceVersion) {
        preconditionFailed = true;
        throw conflict(subjectOf(type, name));
      }
      if (metadata['name'] !== name) throw badRequest(`metadata.name: Invalid value: ${JSON.stringify(metadata['name'])}: field is immutable`);
      const uid = metadata['uid'];
      if (uid !== undefined && uid !== null && uid !== '' && uid !== current.metadata.uid) {
        throw invalid(type.kind, type.group, name, [invalidValue('metadata.uid', uid, 'field is immutable')]);
      }
      if (type.namespaced && (metadata['namespace'] ?? namespace) !== namespace) {
        throw badRequest(`metadata.namespace: Invalid value: ${JSON.stringify(metadata['namespace'])}: field is immutable`);
      }
      const body = { ...patched, apiVersion: patched['apiVersion'] ?? type.apiVersion, kind: patched['kind'] ?? type.kind };
      return this.#replace(type, current, this.#checkBody(type, body, options), options, { resourceVersion: current.metadata.resourceVersion ?? '' }, latest);
    });
  }

  /**
   * Server-side apply of `config` (see `server-side-apply.ts`): creates the object when it does
   * not exist (`created`), else merges into it; retried on concurrent writes.
   */
  async apply(type: ResourceType, namespace: string, name: string, config: unknown, options: ApplyOptions & { subresource?: Subresource | undefined }): Promise<{ object: StoredObject; created: boolean }> {
    assertAppliedKind(config, type.apiVersion, type.kind);
    const cleaned = this.#checkBody(type, config, options);
    // Written concurrently (or created meanwhile): apply again to what is there now.
    const retry = (error: unknown): boolean => isReason(error, 'Conflict') || isReason(error, 'AlreadyExists');
    return this.#guaranteed(this.#refOf(type, namespace, name), retry, async (current, latest) => {
      if (current === undefined && options.subresource !== undefined) throw notFound(subjectOf(type, name));
      const applied = applyConfiguration({
        schema: fieldSchemaOf(type),
        apiVersion: type.apiVersion,
        kind: type.kind,
        live: current as JsonObject | undefined,
        config: cleaned,
        manager: options.fieldManager ?? 'unknown',
        force: options.force,
        now: rfc3339(this.#now()),
        subresource: options.subresource,
      });
      this.#checkIdentity(type, namespace, name, { ...(applied['metadata'] as JsonObject) });
      const internal: InternalWriteOptions = { ...options, applied: true };
      if (current === undefined) return { object: await this.#create(type, namespace, applied, internal), created: true };
      return { object: await this.#replace(type, current, applied, internal, { resourceVersion: current.metadata.resourceVersion ?? '' }, latest), created: false };
    });
  }

  #refOf(type: ResourceType, namespace: string, name: string): ObjectRef {
    return { resource: type.id, namespace: type.namespaced ? namespace : '', name };
  }

  /**
   * Runs `write` on the stored object as the real registry's GuaranteedUpdate does, at most
   * {@link PATCH_RETRIES} times. The first read is the storage's `get`, which may come from a
   * cache that lags another writer (see {@link Storage.getLatest}); when a write computed from
   * such a read fails with a conflict, a missing object or an existing one, or turns out a no-op,
   * it runs again on the latest read, so that only the current state decides. A failure on the
   * latest read is retried when `retry` says so (a concurrent write), else thrown.
   */
  async #guaranteed<T>(ref: ObjectRef, retry: (error: unknown) => boolean, write: (current: StoredObject | undefined, latest: boolean) => Promise<T>): Promise<T> {
    const getLatest = this.#storage.getLatest?.bind(this.#storage);
    let latest = getLatest === undefined;
    for (let attempt = 1; ; attempt += 1) {
      const current = latest && getLatest !== undefined ? await getLatest(ref) : await this.#storage.get(ref);
      try {
        return await write(current, latest);
      } catch (error: unknown) {
        const again = latest ? retry(error) : error instanceof StaleRead || isReason(error, 'Conflict') || isReason(error, 'NotFound') || isReason(error, 'AlreadyExists');
        if (!again || attempt >= PATCH_RETRIES) throw error instanceof StaleRead ? conflict(subjectOf(error.type, ref.name)) : error;
        latest = true;
      }
    }
  }

  /** DELETE of one object; finalizers turn it into marking the object for deletion. */
  async delete(type: ResourceType, namespace: string, name: string, options: DeleteOptions): Promise<DeleteResult> {
    const ref = this.#refOf(type, namespace, name);
    await this.#admission?.admitDelete?.(type, namespace, name);
    // The precondition checks (rest.BeforeDelete) name the Kind, not the resource.
    const subject = { group: type.group, resource: type.kind, name };
    const wanted = options.preconditions;
    // Without preconditions the delete applies to whatever is there: a concurrent write is retried.
    const retry = (error: unknown): boolean => wanted?.uid === undefined && wanted?.resourceVersion === undefined && isReason(error, 'Conflict');
    return this.#guaranteed(ref, retry, async (current) => {
      if (current === undefined) throw notFound(subjectOf(type, name));
      if (wanted?.uid !== undefined && wanted.uid !== current.metadata.uid) {
        throw conflict(subject, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${String(current.metadata.uid)}`);
      }
      if (wanted?.resourceVersion !== undefined && wanted.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(subject, `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${String(current.metadata.resourceVersion)}`);
      }
      const finalizers = finalizersForPropagation(finalizersOf(current.metadata), options.propagationPolicy);
      const blocked = finalizers.length > 0 || type.strategy.heldByKindFinalizers?.(current as JsonObject) === true;
      if (blocked) {
        // Deleting again only changes the garbage-collection finalizer a new propagationPolicy asks for.
        const deleting = current.metadata['deletionTimestamp'] !== undefined;
        if (deleting && jsonEqual(finalizers, finalizersOf(current.metadata))) return { object: current, removed: false };
        const marked = structuredClone(current) as JsonObject;
        const metadata = marked['metadata'] as JsonObject;
        if (finalizers.length > 0) metadata['finalizers'] = finalizers;
        else delete metadata['finalizers'];
        if (!deleting) {
          metadata['deletionTimestamp'] = rfc3339(this.#now());
          metadata['deletionGracePeriodSeconds'] = 0;
          type.strategy.markForDeletion?.(marked);
        }
        // A dry run answers the object as the delete would mark it, without storing it.
        if (options.dryRun) return { object: marked as StoredObject, removed: false };
        const stored = await this.#storage.update(type.id, marked as StoredObject, { resourceVersion: current.metadata.resourceVersion ?? '' }).catch((error: unknown) => {
          throw storeFailure(error, type, name);
        });
        return { object: stored, removed: false };
      }
      if (options.dryRun) return { object: current, removed: true };
      const deleted = await this.#storage.delete(ref, { resourceVersion: current.metadata.resourceVersion ?? '' }).catch((error: unknown) => {
        throw storeFailure(error, type, name);
      });
      return { object: deleted, removed: true };
    });
  }

  /** Deletes every listed object (already filtered by the caller); answers what was deleted. */
  async deleteCollection(type: ResourceType, objects: readonly StoredObject[], options: DeleteOptions): Promise<StoredObject[]> {
    const results: StoredObject[] = [];
    for (const object of objects) {
      try {
        results.push((await this.delete(type, object.metadata.namespace ?? '', object.metadata.name, options)).object);
      } catch (error: unknown) {
        // Deleted concurrently between the list and this delete: the collection delete still succeeds.
        if (!(error instanceof ApiError && error.reason === 'NotFound')) throw error;
      }
    }
    return results;
  }

  /**
   * Stores `object` over `current`. A no-op on a read that may not be the `latest` throws
   * {@link StaleRead}: the object may have changed since, and the write must be computed again.
   */
  async #replace(type: ResourceType, current: StoredObject, object: JsonObject, options: InternalWriteOptions, preconditions: Preconditions, latest: boolean): Promise<StoredObject> {
    const name = current.metadata.name;
    const requestedManagedFields = (object['metadata'] as JsonObject)['managedFields'];
    const next = this.#merged(type, current, object, options.subresource);
    this.#validate(type, next, current, { subresource: options.subresource, user: options.user });
    await options.admit?.(next, current as JsonObject);
    const reveal = type.strategy.seal?.(next, current as JsonObject);
    // After sealing: a write-only field kept from the stored object is no change of the spec.
    const nextMetadata = next['metadata'] as JsonObject;
    const generation = generationOnUpdate(type.generation, next, current as JsonObject);
    if (generation === undefined) delete nextMetadata['generation'];
    else nextMetadata['generation'] = generation;
    this.#trackFields(type, current as JsonObject, next, requestedManagedFields, options);
    this.#allocate(type, next, current);
    this.#checkSize(type, next);
    const currentFinalizers = Array.isArray(current.metadata['finalizers']) ? (current.metadata['finalizers'] as string[]) : [];
    const nextMeta = next['metadata'] as JsonObject;
    const nextFinalizers = Array.isArray(nextMeta['finalizers']) ? (nextMeta['finalizers'] as string[]) : [];
    const deleting = current.metadata['deletionTimestamp'] !== undefined;
    if (deleting && nextFinalizers.some((finalizer) => !currentFinalizers.includes(finalizer))) {
      throw invalid(type.kind, type.group, name, [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted' }]);
    }
    const shown = (object: StoredObject): StoredObject => (reveal === undefined ? object : (reveal(structuredClone(object) as JsonObject) as StoredObject));
    if (jsonEqual(withoutVersion(next), withoutVersion(current as JsonObject))) {
      if (!latest) throw new StaleRead(type);
      return shown(current);
    }
    if (options.dryRun) return shown(next as StoredObject);
    const stored = await this.#reserved(type, next, () => this.#storage.update(type.id, next as StoredObject, preconditions)).catch((error: unknown) => {
      throw storeFailure(error, type, name);
    });
    if (deleting && nextFinalizers.length === 0 && type.strategy.heldByKindFinalizers?.(stored as JsonObject) !== true) {
      return this.#storage.delete({ resource: type.id, namespace: stored.metadata.namespace ?? '', name }, { resourceVersion: stored.metadata.resourceVersion ?? '' }).catch((error: unknown) => {
        throw storeFailure(error, type, name);
      });
    }
    return shown(stored);
  }

  /**
   * The object a PUT stores: server-owned fields kept from `current`. A subresource PUT changes
   * `status` and the metadata a PUT may change, as the real server's status strategies (which
   * keep only the spec) do; what else of it the subresource may change is the kind strategy's rule.
   */
  #merged(type: ResourceType, current: StoredObject, object: JsonObject, subresource: Subresource | undefined): JsonObject {
    if (subresource !== undefined) {
      const next = structuredClone(current) as JsonObject;
      if (object['status'] === undefined) delete next['status'];
      else next['status'] = object['status'];
      next['metadata'] = this.#writtenMetadata(type, current, object);
      return next;
    }
    const next: JsonObject = { ...object };
    next['metadata'] = this.#writtenMetadata(type, current, object);
    if (type.subresources.includes('status')) {
      if (current['status'] === undefined) delete next['status'];
      else next['status'] = current['status'];
    }
    return next;
  }

  /** The metadata a PUT of `object` over `current` stores: the request's, with the server-owned fields kept. */
  #writtenMetadata(type: ResourceType, current: StoredObject, object: JsonObject): JsonObject {
    const metadata: JsonObject = { ...(object['metadata'] as JsonObject) };
    const kept = current.metadata;
    metadata['uid'] = kept.uid;
    metadata['creationTimestamp'] = kept['creationTimestamp'];
    metadata['namespace'] = kept.namespace;
    for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      if (kept[field] === undefined) delete metadata[field];
      else metadata[field] = kept[field];
    }
    delete metadata['managedFields'];
    delete metadata['selfLink'];
    delete metadata['resourceVersion'];
    if (!type.namespaced) delete metadata['namespace'];
    return metadata;
  }

  /**
   * Sets `object`'s `metadata.managedFields` (in place): an apply's as computed, else those of an
   * Update by the write's manager; `requested` is what the request left in them.
   */
  #trackFields(type: ResourceType, live: JsonObject | undefined, object: JsonObject, requested: unknown, options: InternalWriteOptions): void {
    const metadata = object['metadata'] as JsonObject;
    const entries = options.applied
      ? requested
      : updateManagedFields({
          schema: fieldSchemaOf(type),
          live,
          next: object,
          requested,
          manager: options.fieldManager ?? 'unknown',
          apiVersion: type.apiVersion,
          subresource: options.subresource,
          now: rfc3339(this.#now()),
        });
    if (entries === undefined) delete metadata['managedFields'];
    else metadata['managedFields'] = entries;
  }

  /** The metadata rules (for objects to be stored), the schema's types when the kind asks, the kind's defaulting and validation: 422 on any cause. */
  #validate(type: ResourceType, object: JsonObject, current: StoredObject | undefined, context: WriteContext, { stored } = { stored: true }): void {
    const metadata = object['metadata'] as JsonObject;
    const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
    const causes: StatusCause[] = stored ? validateObjectMeta(type, metadata) : [];
    if (type.validatesSchemaTypes && type.schema !== undefined) causes.push(...schemaTypeViolations(type.schema, object, current));
    causes.push(...(type.strategy.prepareForWrite?.(object, current as JsonObject | undefined, context) ?? []));
    causes.push(...(type.strategy.validate?.(object, current as JsonObject | undefined, context) ?? []));
    if (causes.length > 0) throw invalid(type.kind, type.group, name, causes);
  }

  #allocate(type: ResourceType, object: JsonObject, current: StoredObject | undefined): void {
    const causes = type.strategy.allocate?.(object, current as JsonObject | undefined) ?? [];
    if (causes.length > 0) throw invalid(type.kind, type.group, String((object['metadata'] as JsonObject)['name'] ?? ''), causes);
  }

  /**
   * 413 when `object`, as it would be stored (managedFields included), is larger than the limit:
   * after validation, as a real server's storage refuses it after validation passed; before any
   * write, and for a dry run too, so that no client learns the limit only when it stops dry-running.
   */
  #checkSize(type: ResourceType, object: JsonObject): void {
    const size = jsonByteLength(object);
    const limit = this.#maxObjectBytes;
    if (size <= limit) return;
    const name = String((object['metadata'] as JsonObject)['name'] ?? '');
    throw new ApiError(
      'RequestEntityTooLarge',
      `Request entity too large: ${type.kind} ${JSON.stringify(name)} would be ${size} bytes as JSON, more than ${limit} bytes (${(limit / 1024 / 1024).toFixed(2).replace(/\.?0+$/, '')} MiB), the largest object this server stores; make it smaller, e.g. keep large data outside the object`,
    );
  }

  /** Runs `write` while the kind's strategy holds what `object` takes from a shared pool. */
  async #reserved<T>(type: ResourceType, object: JsonObject, write: () => Promise<T>): Promise<T> {
    const release = type.strategy.reserve?.(object);
    try {
      return await write();
    } finally {
      release?.();
    }
  }

  /** A fresh copy of a request body after the type checks every write makes (400 on mismatch). */
  #checkBody(type: ResourceType, body: unknown, options: WriteOptions): JsonObject {
    if (!isJsonObject(body)) throw badRequest(`the body of the request must be a ${type.kind} object`);
    const object = structuredClone(body);
    const apiVersion = object['apiVersion'];
    const kind = object['kind'];
    if (kind !== undefined && kind !== type.kind) {
      throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${type.apiVersion}), or the kind (${String(kind)}) does not match the expected kind (${type.kind})`);
    }
    if (apiVersion !== undefined && apiVersion !== type.apiVersion) {
      throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${type.apiVersion})`);
    }
    object['apiVersion'] = type.apiVersion;
    object['kind'] = type.kind;
    const metadata = object['metadata'];
    if (metadata !== undefined && metadata !== null && !isJsonObject(metadata)) throw badRequest('metadata must be an object');
    object['metadata'] = isJsonObject(metadata) ? metadata : {};
    // The real server cannot decode a timestamp that is not one (400), even where it then ignores it.
    for (const field of ['creationTimestamp', 'deletionTimestamp']) {
      const value = isJsonObject(metadata) ? metadata[field] : undefined;
      if (value !== undefined && value !== null && !isDateTime(value)) {
        throw badRequest(`${type.kind} in version ${JSON.stringify(type.version)} cannot be handled as a ${type.kind}: metadata.${field}: ${JSON.stringify(value)} is not an RFC 3339 time`);
      }
    }
    pruneUnknownFields(type, object, body, options.fieldValidation ?? 'Warn', options.warn ?? (() => undefined));
    return object;
  }

  /**
   * Create: the body's namespace must match the URL's; it is filled in when absent. A namespace
   * sent on a cluster-scoped object is cleared, as the real server's registry does (a client that
   * fills it in everywhere still works, and the stored object has none).
   */
  #checkNamespace(type: ResourceType, namespace: string, metadata: JsonObject): void {
    const given = metadata['namespace'];
    if (!type.namespaced) {
      delete metadata['namespace'];
      return;
    }
    if (given !== undefined && given !== '' && given !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata['namespace'] = namespace;
  }

  #checkIdentity(type: ResourceType, namespace: string, name: string, metadata: JsonObject): void {
    const givenName = metadata['name'];
    if (givenName !== undefined && givenName !== name) throw badRequest(`the name of the object (${String(givenName)}) does not match the name on the URL (${name})`);
    metadata['name'] = name;
    this.#checkNamespace(type, namespace, metadata);
  }
}
