import type { FastifyReply, FastifyRequest } from 'fastify';
import { stringify as toYaml } from 'yaml';
import type { Logger } from '../observe/logger.js';
import { ApiError, badRequest, forbidden, invalidOptions, isJsonObject, type JsonObject, notFound, unsupportedMediaType, wireDetails } from '../apimachinery/index.js';
import { PATCH_MEDIA_TYPES, type PatchMediaType } from './apply-patch.js';
import { UndecodableBody } from './body-decoder.js';
import { bodyMediaType, negotiate, type Representation } from './content-negotiation.js';
import { parseFieldSelector, type FieldSelector } from './field-selector.js';
import { fieldValidationOf, type WriteOptionsKind } from './field-validation.js';
import { parseLabelSelector, type LabelSelector } from './label-selector.js';
import { listVersionOptions, validateWatchOptions } from './list-options.js';
import { fieldManagerOf } from './field-manager.js';
import type { ListPager } from './list-pager.js';
import { isPropagationPolicy } from './deletion-propagation.js';
import { resourceVersionFailure, type DeleteOptions, type ObjectWriter, type WriteOptions } from './object-writer.js';
import { enforceBlockOwnerDeletionPermission, type BlockOwnerDeletionAdmission } from './owner-reference-permission.js';
import { invisibleResult, type RequestAccess } from './request-authorization.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { ResourceRequest } from './request-info.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';
import type { Subresource } from './subresource.js';
import { ANONYMOUS } from './self-reviews.js';
import { APPLY_PATCH_MEDIA_TYPE } from './server-side-apply.js';
import type { Preconditions, Storage, StoredObject } from './storage.js';
import { parseIncludeObject, partialObjectMetadata, toTable, type TableListMeta } from './table-view.js';
import type { ApiServerMetrics } from './api-server-metrics.js';
import { WatchLimitError, type WatchAdmission } from './watch-admission.js';
import type { WatchEventCache } from './watch-event-cache.js';
import type { WatchWriteTurns } from './watch-write-turns.js';
import { WatchStream } from './watch-stream.js';

/** The media types of object bodies the core parses itself (DeleteOptions are only these). */
export const TEXT_OBJECT_MEDIA_TYPES: readonly string[] = ['application/json', 'application/yaml'];

/** What the resource handler works with. */
export interface ResourceHandlerInit {
  storage: Storage;
  /** Every served kind (owner references name owners by apiVersion and kind). */
  registry: ResourceRegistry;
  writer: ObjectWriter;
  /**
   * Media types accepted as bodies of create and update: {@link TEXT_OBJECT_MEDIA_TYPES} and those
   * of the server's body decoders (the devcluster's protobuf).
   */
  objectMediaTypes: readonly string[];
  pager: ListPager;
  /** Wall clock in ms (table ages). */
  now: () => number;
  bookmarkIntervalMs: number;
  watchSendBufferBytes: number;
  /** Every open watch, so that closing the server can end them. */
  watches: Set<WatchStream>;
  /** Admits watches below the per-user and global caps. */
  watchAdmission: WatchAdmission;
  /** The event lines the watches share. */
  watchLines: WatchEventCache;
  /** Where watches with a backlog take turns to write. */
  watchTurns: WatchWriteTurns;
  /** Counts watches; undefined: not counted. */
  metrics: ApiServerMetrics | undefined;
  logger: Logger;
}

function mediaTypeOf(request: FastifyRequest): string {
  return bodyMediaType(request.method, request.headers['content-type']);
}

function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw badRequest(`invalid value for ${name}: "${value}" (expected true or false)`);
}

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest(`invalid value for ${name}: "${value}" (expected an integer)`);
  return Number(value);
}

/**
 * The options of a create, update or patch from its query: `dryRun`, `fieldManager` (checked; from
 * the User-Agent when absent), and `fieldValidation` whose `Warn` messages become
 * `Warning: 299 - "<message>"` response headers, as kubectl expects.
 */
function writeOptions(query: URLSearchParams, reply: FastifyReply, request: FastifyRequest, kind: WriteOptionsKind, apply = false): WriteOptions {
  const warnings: string[] = [];
  const fieldManager = fieldManagerOf({ kind, fieldManager: query.get('fieldManager') ?? undefined, userAgent: request.headers['user-agent'], apply, force: query.has('force') });
  return {
    fieldManager,
    dryRun: dryRunOf(query, undefined),
    fieldValidation: fieldValidationOf(query, kind),
    warn: (message) => {
      // A header carries visible ASCII only: anything else (from field names a client sent) is escaped.
      const quoted = JSON.stringify(message).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
      warnings.push(`299 - ${quoted}`);
      reply.header('warning', warnings);
    },
  };
}

function dryRunOf(query: URLSearchParams, body: unknown): boolean {
  const values = [...query.getAll('dryRun')];
  if (isJsonObject(body) && Array.isArray(body['dryRun'])) values.push(...body['dryRun'].map((value) => String(value)));
  for (const value of values) {
    if (value !== 'All') throw badRequest(`Invalid dryRun value: ${JSON.stringify(value)}: supported values: "All"`);
  }
  return values.length > 0;
}

function selectors(query: URLSearchParams, type: ResourceType): { labels: LabelSelector; fields: FieldSelector } {
  return { labels: parseLabelSelector(query.get('labelSelector') ?? undefined), fields: parseFieldSelector(query.get('fieldSelector') ?? undefined, type) };
}

/**
 * An item of a JSON or YAML list as the real server encodes it: the list names the kind, so its
 * items carry no `apiVersion` and `kind` (watch events and single objects keep them).
 */
function withoutTypeMeta(object: StoredObject): StoredObject {
  const rest: StoredObject = { ...object };
  delete rest.apiVersion;
  delete rest.kind;
  return rest;
}

/** The object as responses show it (the kind's {@link KindStrategy.present}). */
function presented(type: ResourceType, object: StoredObject): StoredObject {
  return type.strategy.present === undefined ? object : (type.strategy.present(object as JsonObject) as StoredObject);
}

/**
 * The write options that keep a restricted user to the objects it may see: the stored object must
 * be visible (else 404, as if absent), and so must the result (else 403: it would give it away).
 */
function admission(target: ResourceRequest, access: RequestAccess | undefined, owners: Pick<BlockOwnerDeletionAdmission, 'registry' | 'read'>): Pick<WriteOptions, 'admit'> {
  if (access === undefined) return {};
  const { type, name, namespace } = target;
  const mayUpdateFinalizers = access.mayUpdateFinalizers;
  return {
    admit: async (object, old) => {
      if (old !== undefined && !access.visible(old)) throw notFound({ group: type.group, resource: type.plural, name });
      const objectName = String((object['metadata'] as JsonObject | undefined)?.['name'] ?? name);
      if (!access.visible(object)) throw invisibleResult(type, objectName);
      const refused = access.refuseWrite(object, old);
      if (refused !== undefined) throw forbidden(refused, { name: objectName, group: type.group, kind: type.plural });
      if (mayUpdateFinalizers !== undefined) await enforceBlockOwnerDeletionPermission({ ...owners, type, namespace, object, old, mayUpdateFinalizers });
    },
  };
}

function matcher(selected: { labels: LabelSelector; fields: FieldSelector }): (object: StoredObject) => boolean {
  return (object) => selected.fields.matches(object) && selected.labels.matches(object.metadata['labels'] as Record<string, string> | undefined);
}

/**
 * Serves the verbs of one resource request (get, list, watch, create, update, patch, delete,
 * deletecollection) over the {@link ObjectWriter} and the {@link Storage}, in the representation the
 * client accepts (JSON, YAML, Table, PartialObjectMetadata). Failures are thrown as
 * {@link ApiError}s for the error handler, except on a hijacked watch response.
 */
export class ResourceHandler {
  readonly #init: ResourceHandlerInit;

  /** Does no I/O. */
  constructor(init: ResourceHandlerInit) {
    this.#init = init;
  }

  /**
   * Answers `request` (already parsed into `target`) on `reply`; `access` restricts the objects
   * the user may see and write (see {@link RequestAccess}), undefined when unrestricted; `user`
   * is who the request comes from (the kind's strategy may record it, as a CSR's requester, and
   * the procedures of unstored kinds and actions answer for it).
   */
  async handle(
    target: ResourceRequest,
    request: FastifyRequest,
    reply: FastifyReply,
    query: URLSearchParams,
    access?: RequestAccess,
    user?: AuthenticatedUser,
  ): Promise<FastifyReply | undefined> {
    const { type, namespace, name } = target;
    // Updates and patches address the object or a subresource it serves; actions are only ever created.
    const subresource: Subresource | undefined = type.subresources.find((served) => served === target.subresource);
    const writer = this.#init.writer;
    const admit = {
      ...admission(target, access, {
        registry: this.#init.registry,
        read: (ownerType, ownerNamespace, ownerName) => this.#init.storage.get({ resource: ownerType.id, namespace: ownerNamespace, name: ownerName }),
      }),
      ...(user !== undefined ? { user } : {}),
    };
    switch (target.verb) {
      case 'get': {
        const representation = negotiate(request.headers.accept, ['json', 'yaml', 'table', 'partial']);
        const object = await writer.get(type, namespace, name);
        if (access !== undefined && !access.visible(object)) throw notFound({ group: type.group, resource: type.plural, name });
        return this.#sendOne(reply, 200, type, object, representation, query);
      }
      case 'list':
        return this.#list(target, request, reply, query, access);
      case 'watch':
        return this.#watch(target, request, reply, query, access, user);
      case 'create': {
        const action = target.subresource === undefined ? undefined : type.actions.get(target.subresource);
        if (action !== undefined || type.procedure !== undefined) {
          const representation = negotiate(request.headers.accept, ['json', 'yaml']);
          this.#requireMediaType(request, this.#init.objectMediaTypes);
          const options = { ...writeOptions(query, reply, request, 'CreateOptions'), user, ...(action !== undefined ? { target: { namespace, name } } : {}) };
          const answer = await writer.perform(action ?? type, namespace, request.body, options);
          return this.#send(reply, 201, answer, representation);
        }
        const representation = negotiate(request.headers.accept, ['json', 'yaml', 'table', 'partial']);
        this.#requireMediaType(request, this.#init.objectMediaTypes);
        const created = await writer.create(type, namespace, request.body, { ...writeOptions(query, reply, request, 'CreateOptions'), ...admit });
        return this.#sendOne(reply, 201, type, created, representation, query);
      }
      case 'update': {
        const representation = negotiate(request.headers.accept, ['json', 'yaml', 'table', 'partial']);
        this.#requireMediaType(request, this.#init.objectMediaTypes);
        const result = await writer.update(type, namespace, name, request.body, { ...writeOptions(query, reply, request, 'UpdateOptions'), ...admit, ...(subresource !== undefined ? { subresource } : {}) });
        return this.#sendOne(reply, result.created ? 201 : 200, type, result.object, representation, query);
      }
      case 'patch': {
        const representation = negotiate(request.headers.accept, ['json', 'yaml', 'table', 'partial']);
        const mediaType = this.#requireMediaType(request, [...PATCH_MEDIA_TYPES, APPLY_PATCH_MEDIA_TYPE]);
        const apply = mediaType === APPLY_PATCH_MEDIA_TYPE;
        const options = { ...writeOptions(query, reply, request, 'PatchOptions', apply), ...admit, ...(subresource !== undefined ? { subresource } : {}) };
        if (apply) {
          const result = await writer.apply(type, namespace, name, request.body, { ...options, force: booleanParam(query, 'force') === true });
          return this.#sendOne(reply, result.created ? 201 : 200, type, result.object, representation, query);
        }
        const patched = await writer.patch(type, namespace, name, mediaType as PatchMediaType, request.body, options);
        return this.#sendOne(reply, 200, type, patched, representation, query);
      }
      case 'delete':
        return this.#delete(target, request, reply, query, access);
      case 'deletecollection': {
        const representation = negotiate(request.headers.accept, ['json', 'yaml']);
        const options = this.#deleteOptions(request, query);
        const selected = selectors(query, type);
        const scope = type.namespaced && namespace !== '' ? { namespace } : {};
        const listed = await this.#init.storage.list(type.id, scope);
        const selectedItems = listed.items.filter(matcher(selected)).filter((object) => access?.visible(object) ?? true);
        const deleted = await writer.deleteCollection(type, selectedItems, {
          dryRun: options.dryRun,
          ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
        });
        // The list's resourceVersion is the storage's after the deletes.
        const { resourceVersion } = await this.#init.storage.list(type.id, scope);
        const list = { kind: type.listKind, apiVersion: type.apiVersion, metadata: { resourceVersion }, items: deleted.map((object) => presented(type, object)) };
        return this.#send(reply, 200, list, representation);
      }
    }
  }

  #requireMediaType(request: FastifyRequest, accepted: readonly string[]): string {
    const mediaType = mediaTypeOf(request);
    if (!accepted.includes(mediaType)) throw unsupportedMediaType(mediaType === '' ? '<none>' : mediaType, accepted);
    if (request.body === undefined || request.body === null) throw badRequest('the request body is empty; it must hold the object (or patch) to write');
    if (request.body instanceof UndecodableBody) throw request.body.failure;
    return mediaType;
  }

  #deleteOptions(request: FastifyRequest, query: URLSearchParams): DeleteOptions {
    const body: unknown = request.body;
    if (body !== undefined && body !== null) {
      // DeleteOptions are never binary: body decoders leave DELETE bodies as bytes.
      if (Buffer.isBuffer(body)) throw unsupportedMediaType(mediaTypeOf(request), TEXT_OBJECT_MEDIA_TYPES);
      if (!isJsonObject(body)) throw badRequest('the body of a DELETE must be a DeleteOptions object');
    }
    integerParam(query, 'gracePeriodSeconds');
    const policy = query.get('propagationPolicy') ?? (isJsonObject(body) ? body['propagationPolicy'] : undefined);
    if (policy !== undefined && policy !== null && !['Orphan', 'Background', 'Foreground'].includes(String(policy))) {
      throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
    }
    const dryRun = dryRunOf(query, body);
    // The deprecated orphanDependents stands for Orphan (true) or Background (false). A query value
    // reads as the real server's parameter conversion reads a bool: only "false" and "0" are false.
    const queried = query.get('orphanDependents');
    const orphan = queried !== null ? queried !== 'false' && queried !== '0' : isJsonObject(body) ? body['orphanDependents'] : undefined;
    if (typeof orphan === 'boolean' && policy !== undefined && policy !== null) {
      const message = `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`;
      throw invalidOptions('DeleteOptions', [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message }]);
    }
    const orphanPolicy = orphan === true ? 'Orphan' : orphan === false ? 'Background' : undefined;
    const propagationPolicy = isPropagationPolicy(policy) ? policy : orphanPolicy;
    const propagation = propagationPolicy !== undefined ? { propagationPolicy } : {};
    const given = isJsonObject(body) && isJsonObject(body['preconditions']) ? body['preconditions'] : undefined;
    if (given === undefined) return { dryRun, ...propagation };
    const preconditions: Preconditions = {};
    if (typeof given['uid'] === 'string') preconditions.uid = given['uid'];
    if (typeof given['resourceVersion'] === 'string') preconditions.resourceVersion = given['resourceVersion'];
    return { dryRun, preconditions, ...propagation };
  }

  async #delete(target: ResourceRequest, request: FastifyRequest, reply: FastifyReply, query: URLSearchParams, access: RequestAccess | undefined): Promise<FastifyReply> {
    const { type, namespace, name } = target;
    const representation = negotiate(request.headers.accept, ['json', 'yaml']);
    if (access !== undefined && !access.visible(await this.#init.writer.get(type, namespace, name))) throw notFound({ group: type.group, resource: type.plural, name });
    const result = await this.#init.writer.delete(type, namespace, name, this.#deleteOptions(request, query));
    if (result.removed && !type.returnDeletedObject) {
      const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: wireDetails({ name, group: type.group, kind: type.plural, uid: result.object.metadata.uid }) };
      return this.#send(reply, 200, status, representation);
    }
    return this.#send(reply, 200, presented(type, result.object), representation);
  }

  async #list(target: ResourceRequest, request: FastifyRequest, reply: FastifyReply, query: URLSearchParams, access: RequestAccess | undefined): Promise<FastifyReply> {
    const { type, namespace } = target;
    const representation = negotiate(request.headers.accept, ['json', 'yaml', 'table', 'partial']);
    const selected = selectors(query, type);
    const limit = integerParam(query, 'limit');
    if (limit !== undefined && limit < 0) throw badRequest(`limit must not be negative, got ${limit}`);
    const { resourceVersion, match } = listVersionOptions(query, limit);
    const page = await this.#init.pager.page({
      snapshot: () =>
        this.#init.storage.list(type.id, { ...(type.namespaced && namespace !== '' ? { namespace } : {}), resourceVersion, exact: match === 'Exact' }).catch((error: unknown) => {
          throw resourceVersionFailure(error);
        }),
      matches: (object) => matcher(selected)(object) && (access?.visible(object) ?? true),
      limit,
      continueToken: query.get('continue') ?? undefined,
    });
    const items = page.items.map((object) => presented(type, object));
    const metadata: TableListMeta = { resourceVersion: page.resourceVersion };
    if (page.continueToken !== undefined) metadata.continue = page.continueToken;
    // As on the real server, the count is only known (and sent) for an unfiltered list.
    const unfiltered = selected.labels.requirements.length === 0 && selected.fields.requirements.length === 0;
    if (page.remainingItemCount !== undefined && unfiltered) metadata.remainingItemCount = page.remainingItemCount;
    if (representation === 'table') {
      return this.#send(reply, 200, toTable(type, items, metadata, parseIncludeObject(query.get('includeObject')), this.#init.now()), 'json');
    }
    if (representation === 'partial') {
      return this.#send(reply, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata, items: items.map(partialObjectMetadata) }, 'json');
    }
    return this.#send(reply, 200, { kind: type.listKind, apiVersion: type.apiVersion, metadata, items: items.map(withoutTypeMeta) }, representation);
  }

  async #watch(target: ResourceRequest, request: FastifyRequest, reply: FastifyReply, query: URLSearchParams, access: RequestAccess | undefined, user: AuthenticatedUser | undefined): Promise<undefined> {
    const { type, namespace, name } = target;
    const representation = negotiate(request.headers.accept, ['json', 'table', 'partial']);
    const selected = selectors(query, type);
    let fieldSelector = selected.fields;
    if (name !== '') {
      // `GET .../<plural>/<name>?watch=true` watches one object: the same as a name field selector.
      const combined = [`metadata.name=${name}`, query.get('fieldSelector') ?? ''].filter((part) => part !== '').join(',');
      fieldSelector = parseFieldSelector(combined, type);
    }
    const timeoutSeconds = integerParam(query, 'timeoutSeconds');
    const sendInitialEvents = booleanParam(query, 'sendInitialEvents');
    validateWatchOptions(query, sendInitialEvents);
    const includeObject = parseIncludeObject(query.get('includeObject'));
    const encode = (stored: StoredObject): unknown => {
      const object = presented(type, stored);
      if (representation === 'table') return toTable(type, [object], { resourceVersion: object.metadata.resourceVersion ?? '' }, includeObject, this.#init.now());
      if (representation === 'partial') return partialObjectMetadata(object);
      return object;
    };
    const metrics = this.#init.metrics;
    let release: () => void;
    try {
      release = this.#init.watchAdmission.admit((user ?? ANONYMOUS).username);
    } catch (error: unknown) {
      if (error instanceof WatchLimitError) metrics?.watchRefused(error.limit);
      throw error;
    }
    metrics?.watchesChanged(1);
    const stream = new WatchStream({
      storage: this.#init.storage,
      type,
      namespace: type.namespaced && namespace !== '' ? namespace : undefined,
      labelSelector: selected.labels,
      fieldSelector,
      visible: access === undefined ? undefined : (object) => access.visible(object),
      resourceVersion: query.get('resourceVersion') ?? '',
      sendInitialEvents,
      allowBookmarks: booleanParam(query, 'allowWatchBookmarks') === true,
      timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
      bookmarkIntervalMs: this.#init.bookmarkIntervalMs,
      sendBufferBytes: this.#init.watchSendBufferBytes,
      response: reply.raw,
      encoding: { representation, shared: representation !== 'table', encode },
      lines: this.#init.watchLines,
      turns: this.#init.watchTurns,
      events: metrics === undefined ? undefined : { sent: () => metrics.watchEventSent(), slowClosed: () => metrics.slowWatchClosed() },
      logger: this.#init.logger,
      onEnd: () => {
        this.#init.watches.delete(stream);
        release();
        metrics?.watchesChanged(-1);
      },
    });
    reply.hijack();
    // Held from the start, so that closing the server also ends a watch still registering.
    this.#init.watches.add(stream);
    try {
      await stream.start();
    } catch (error: unknown) {
      // Found before streaming (410 too old, 400 malformed): answered as a plain Status response.
      const own = error instanceof ApiError && error.request === undefined;
      const failure = own ? error : new ApiError('InternalError', 'the watch could not start', undefined, { cause: error });
      if (!own) this.#init.logger.error({ err: error }, 'Watch failed to start');
      // Ended meanwhile (client gone, server closing): there is no one to answer.
      if (reply.raw.headersSent) return undefined;
      reply.raw.writeHead(failure.code, { 'Content-Type': 'application/json' });
      reply.raw.end(JSON.stringify(failure.toStatus()));
      return undefined;
    }
    return undefined;
  }

  #sendOne(reply: FastifyReply, code: number, type: ResourceType, stored: StoredObject, representation: Representation, query: URLSearchParams): FastifyReply {
    const object = presented(type, stored);
    if (representation === 'table') {
      const table = toTable(type, [object], { resourceVersion: object.metadata.resourceVersion ?? '' }, parseIncludeObject(query.get('includeObject')), this.#init.now());
      return this.#send(reply, code, table, 'json');
    }
    if (representation === 'partial') return this.#send(reply, code, partialObjectMetadata(object), 'json');
    return this.#send(reply, code, object, representation);
  }

  #send(reply: FastifyReply, code: number, body: unknown, representation: Representation): FastifyReply {
    if (representation === 'yaml') return reply.code(code).type('application/yaml').send(toYaml(body));
    return reply.code(code).type('application/json').send(JSON.stringify(body));
  }
}

