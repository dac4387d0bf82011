import { createHash } from 'node:crypto';
import { encodeOpenApiV2 } from './openapi-v2-protobuf.js';
import type { ResourceRegistry, ResourceType } from './resource-type.js';
import type { SchemaObject } from './schema-object.js';
import type { KindSchema } from './schema-pruning.js';

type Schema = SchemaObject;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string: Schema = { type: 'string' };
const integer: Schema = { type: 'integer', format: 'int32' };
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string', default: '' } };
const freeObject: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const objectList = (extensions: Schema = {}): Schema => ({ type: 'array', items: freeObject, ...extensions });

/**
 * The schemas a document needs besides the kinds' own, for kinds defined without a schema: a
 * kind's {@link KindSchema} components replace them with the real server's.
 */
export const COMMON_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  [`${META}.ObjectMeta`]: {
    description: 'ObjectMeta is metadata that all persisted resources must have.',
    type: 'object',
    properties: {
      name: string,
      generateName: string,
      namespace: string,
      selfLink: string,
      uid: string,
      resourceVersion: string,
      generation: { type: 'integer', format: 'int64' },
      creationTimestamp: { type: 'string', format: 'date-time' },
      deletionTimestamp: { type: 'string', format: 'date-time' },
      deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
      labels: stringMap,
      annotations: stringMap,
      finalizers: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: objectList({ 'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge' }),
      managedFields: objectList(),
    },
  },
  [`${META}.ListMeta`]: { type: 'object', properties: { resourceVersion: string, continue: string, remainingItemCount: { type: 'integer', format: 'int64' } } },
  [`${META}.Status`]: {
    type: 'object',
    properties: { apiVersion: string, kind: string, metadata: ref(`${META}.ListMeta`), status: string, message: string, reason: string, details: freeObject, code: integer },
    'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
  },
  [`${META}.DeleteOptions`]: {
    type: 'object',
    properties: { apiVersion: string, kind: string, dryRun: { type: 'array', items: string }, gracePeriodSeconds: { type: 'integer', format: 'int64' }, preconditions: freeObject, propagationPolicy: string },
  },
  [`${META}.Patch`]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
  [`${META}.WatchEvent`]: { type: 'object', required: ['type', 'object'], properties: { type: string, object: freeObject } },
};

function packageOf(type: ResourceType): string {
  if (type.group === '') return `io.k8s.api.core.${type.version}`;
  return `io.k8s.api.${type.group.replace(/\.k8s\.io$/, '').replace(/\./g, '_')}.${type.version}`;
}

function gvk(type: ResourceType, kind = type.kind): Schema {
  return { group: type.group, version: type.version, kind };
}

const JSON_TYPES = ['application/json', 'application/yaml'];

function content(schema: Schema, types = JSON_TYPES): Schema {
  return Object.fromEntries(types.map((mediaType) => [mediaType, { schema }]));
}

function queryParam(name: string, description: string, schema: Schema = string): Schema {
  return { name, in: 'query', description, schema, uniqueItems: true };
}

const DRY_RUN = queryParam('dryRun', 'When present, indicates that modifications should not be persisted. Valid value: All.');
const FIELD_MANAGER = queryParam('fieldManager', 'A name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = queryParam('fieldValidation', 'How the server treats unknown or duplicate fields: Ignore, Warn or Strict.');
const WRITE_PARAMS = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
const LIST_PARAMS = [
  queryParam('allowWatchBookmarks', 'Requests watch events with type BOOKMARK.', { type: 'boolean' }),
  queryParam('continue', 'The continue option from a previous paged list.'),
  queryParam('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
  queryParam('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
  queryParam('limit', 'Maximum number of responses to return for a list call.', integer),
  queryParam('resourceVersion', 'Which resource versions may serve the request.'),
  queryParam('resourceVersionMatch', 'How resourceVersion is applied to list calls.'),
  queryParam('sendInitialEvents', 'Send the current state as synthetic events first.', { type: 'boolean' }),
  queryParam('timeoutSeconds', 'Timeout for the list/watch call.', integer),
  queryParam('watch', 'Watch for changes to the described resources.', { type: 'boolean' }),
];

function operation(type: ResourceType, action: string, id: string, extra: Schema): Schema {
  return { operationId: id, tags: [type.group === '' ? `core_${type.version}` : `${type.group}_${type.version}`], 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk(type), ...extra };
}

function paths(type: ResourceType): Record<string, Schema> {
  const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = type.namespaced ? `/namespaces/{namespace}` : '';
  const object = ref(schemaNameOf(type));
  const list = ref(`${schemaNameOf(type)}List`);
  const status = ref(`${META}.Status`);
  const ok = (schema: Schema): Schema => ({ '200': { description: 'OK', content: content(schema) } });
  const created = (schema: Schema): Schema => ({ ...ok(schema), '201': { description: 'Created', content: content(schema) }, '202': { description: 'Accepted', content: content(schema) } });
  const pathParams = [
    { name: 'name', in: 'path', required: true, description: `name of the ${type.kind}`, schema: string, uniqueItems: true },
    ...(type.namespaced ? [{ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope', schema: string, uniqueItems: true }] : []),
  ];
  const collectionParams = type.namespaced ? [pathParams[1]] : [];
  const actionPaths = Object.fromEntries(
    [...type.actions].map(([action, actionType]) => {
      const body = ref(schemaNameOf(actionType));
      return [
        `${prefix}${scope}/${type.plural}/{name}/${action}`,
        { post: operation(actionType, 'post', `create${type.kind}${actionType.kind}`, { parameters: WRITE_PARAMS, requestBody: { required: true, content: content(body) }, responses: created(body) }), parameters: pathParams },
      ];
    }),
  );
  // A kind that is not stored is only created; one with no verbs of its own only has actions.
  if (type.procedure !== undefined) {
    return { [`${prefix}${scope}/${type.plural}`]: { post: operation(type, 'post', `create${type.kind}`, { parameters: WRITE_PARAMS, requestBody: { required: true, content: content(object) }, responses: created(object) }), parameters: collectionParams } };
  }
  if (type.verbs.length === 0) return actionPaths;
  // The server accepts strategic merge patches, but the document does not advertise them: kubectl
  // would then compute apply patches from the schemas' merge keys (and, for a kind defined without
  // a schema, warn about every field it leaves out). Without the advertisement it uses its
  // compiled-in types, whose merge keys are the ones the kinds' merge strategies implement.
  const patchBody = {
    required: true,
    content: content(ref(`${META}.Patch`), ['application/json-patch+json', 'application/merge-patch+json']),
  };
  const item = (sub: string): Schema => ({
    get: operation(type, 'get', `read${type.kind}${sub}`, { responses: ok(object) }),
    put: operation(type, 'put', `replace${type.kind}${sub}`, { parameters: WRITE_PARAMS, requestBody: { required: true, content: content(object) }, responses: created(object) }),
    patch: operation(type, 'patch', `patch${type.kind}${sub}`, { parameters: [...WRITE_PARAMS, queryParam('force', 'Force is only used for Apply requests.', { type: 'boolean' })], requestBody: patchBody, responses: created(object) }),
    parameters: pathParams,
  });
  const result: Record<string, Schema> = {
    [`${prefix}${scope}/${type.plural}`]: {
      get: operation(type, 'list', `list${type.kind}`, { parameters: LIST_PARAMS, responses: ok(list) }),
      post: operation(type, 'post', `create${type.kind}`, { parameters: WRITE_PARAMS, requestBody: { required: true, content: content(object) }, responses: created(object) }),
      ...(type.verbs.includes('deletecollection')
        ? { delete: operation(type, 'deletecollection', `deleteCollection${type.kind}`, { parameters: [DRY_RUN, ...LIST_PARAMS], responses: ok(status) }) }
        : {}),
      parameters: collectionParams,
    },
    [`${prefix}${scope}/${type.plural}/{name}`]: {
      ...item(''),
      delete: operation(type, 'delete', `delete${type.kind}`, {
        parameters: [DRY_RUN, queryParam('gracePeriodSeconds', 'Seconds before the object is deleted.', integer), queryParam('propagationPolicy', 'Whether and how garbage collection is performed.')],
        requestBody: { content: content(ref(`${META}.DeleteOptions`)) },
        responses: { ...ok(status), '202': { description: 'Accepted', content: content(status) } },
      }),
    },
  };
  for (const subresource of type.subresources) {
    result[`${prefix}${scope}/${type.plural}/{name}/${subresource}`] = item(`${subresource.charAt(0).toUpperCase()}${subresource.slice(1)}`);
  }
  return { ...result, ...actionPaths };
}

/** The component name of a kind's schema, e.g. `io.k8s.api.core.v1.ConfigMap`. */
function schemaNameOf(type: ResourceType): string {
  return type.schema?.name ?? `${packageOf(type)}.${type.kind}`;
}

/** What every document references besides the kinds: errors, deletes, patches, watches. */
const COMMON_ROOTS = [`${META}.Status`, `${META}.DeleteOptions`, `${META}.Patch`, `${META}.WatchEvent`];
const REF_PREFIX = '#/components/schemas/';

function referencesOf(value: unknown, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) referencesOf(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith(REF_PREFIX)) into.push(item.slice(REF_PREFIX.length));
      else referencesOf(item, into);
    }
  }
}

/** The schemas of `components` reachable from `roots` through `$ref`s (roots not in `components` are skipped). */
export function reachableSchemas(components: Readonly<Record<string, Schema>>, roots: readonly string[]): Record<string, Schema> {
  const kept: Record<string, Schema> = {};
  const queue = [...roots];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    const schema = components[name];
    if (schema === undefined || name in kept) continue;
    kept[name] = schema;
    referencesOf(schema, queue);
  }
  return kept;
}

/** A kind's schema and its list's (and its actions' schemas), with everything they reference. */
function schemas(type: ResourceType, serverName: string): Record<string, Schema> {
  if (type.actions.size > 0) return Object.assign(kindSchemas(type, serverName), ...[...type.actions.values()].map((action) => kindSchemas(action, serverName))) as Record<string, Schema>;
  return kindSchemas(type, serverName);
}

function kindSchemas(type: ResourceType, serverName: string): Record<string, Schema> {
  if (type.schema !== undefined) {
    const { name, components } = type.schema;
    return reachableSchemas(components, [name, `${name}List`, ...COMMON_ROOTS]);
  }
  const name = schemaNameOf(type);
  return {
    [name]: { description: `${type.kind} as served by the ${serverName}.`, ...genericSchema(type) },
    [`${name}List`]: {
      type: 'object',
      required: ['items'],
      properties: { apiVersion: string, kind: string, metadata: ref(`${META}.ListMeta`), items: { type: 'array', items: ref(name) } },
      'x-kubernetes-group-version-kind': [gvk(type, type.listKind)],
    },
  };
}

/** The schema of a kind defined without one: apiVersion, kind, ObjectMeta, the rest kept as sent. */
function genericSchema(type: ResourceType): Schema {
  return {
    type: 'object',
    properties: { apiVersion: string, kind: string, metadata: ref(`${META}.ObjectMeta`) },
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [gvk(type)],
  };
}

const genericKindSchemas = new WeakMap<ResourceType, KindSchema>();

/** The {@link KindSchema} writes of a kind defined without one are pruned to (one per type). */
export function genericKindSchema(type: ResourceType): KindSchema {
  let schema = genericKindSchemas.get(type);
  if (schema === undefined) {
    const name = schemaNameOf(type);
    schema = { name, components: { ...COMMON_SCHEMAS, [name]: genericSchema(type) } };
    genericKindSchemas.set(type, schema);
  }
  return schema;
}

/**
 * An OpenAPI v3 schema as Swagger 2.0 writes it (what the real server's two documents differ in):
 * `$ref`s into `#/definitions/`, the `allOf` wrapper v3 puts around a described `$ref`
 * unwrapped, `oneOf` (int-or-string, quantities) as the string type v2 declares, no `default`.
 */
function schemaV2(schema: unknown): Schema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const result: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === '$ref' && typeof value === 'string') result[key] = value.replace(REF_PREFIX, '#/definitions/');
    else if (key === 'allOf' && Array.isArray(value) && value.length === 1) Object.assign(result, schemaV2(value[0]));
    else if (key === 'oneOf') result['type'] = 'string';
    else if (key === 'properties') result[key] = Object.fromEntries(Object.entries(value as Schema).map(([name, property]) => [name, schemaV2(property)]));
    else if (key === 'items' || key === 'additionalProperties') result[key] = typeof value === 'object' ? schemaV2(value) : value;
    else if (key !== 'default') result[key] = value;
  }
  return result;
}

/** An OpenAPI v3 operation as a Swagger 2.0 one: parameters typed inline, the body a parameter, one schema per response. */
function operationV2(operation: Schema): Schema {
  const { parameters, requestBody, responses, ...rest } = operation as { parameters?: Schema[]; requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }; responses?: Record<string, { description: string; content?: Record<string, { schema: Schema }> }> };
  const result: Schema = { ...rest };
  const converted = (parameters ?? []).map(parameterV2);
  if (requestBody !== undefined) {
    result['consumes'] = Object.keys(requestBody.content);
    converted.push({ name: 'body', in: 'body', required: requestBody.required ?? false, schema: schemaV2(Object.values(requestBody.content)[0]?.schema) });
  }
  if (converted.length > 0) result['parameters'] = converted;
  if (responses !== undefined) {
    const produced = Object.values(responses).flatMap((response) => Object.keys(response.content ?? {}));
    if (produced.length > 0) result['produces'] = [...new Set(produced)];
    result['responses'] = Object.fromEntries(
      Object.entries(responses).map(([code, response]) => {
        const schema = Object.values(response.content ?? {})[0]?.schema;
        return [code, { description: response.description, ...(schema !== undefined ? { schema: schemaV2(schema) } : {}) }];
      }),
    );
  }
  return result;
}

function parameterV2(parameter: Schema): Schema {
  const { schema, ...rest } = parameter as { schema?: Schema };
  return { ...rest, ...(schema !== undefined ? schemaV2(schema) : {}) };
}

/** A v3 path item as a v2 one. */
function pathItemV2(item: Schema): Schema {
  return Object.fromEntries(
    Object.entries(item).map(([key, value]) => [key, key === 'parameters' ? (value as Schema[]).map(parameterV2) : operationV2(value as Schema)]),
  );
}

/** The OpenAPI v3 path of a group-version, e.g. `api/v1` or `apis/coordination.k8s.io/v1`. */
export function openApiPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** What {@link OpenApiDocuments} describes. */
export interface OpenApiInit {
  registry: ResourceRegistry;
  /** `info.version` of every document: the server's gitVersion. */
  gitVersion: string;
  /** How kinds' schemas name the server: `<Kind> as served by the <serverName>.` */
  serverName: string;
}

/**
 * The OpenAPI v3 documents of one server (`GET /openapi/v3` and `/openapi/v3/<path>`), built
 * from its registry on demand; document hashes are computed once per path.
 */
export class OpenApiDocuments {
  readonly #init: OpenApiInit;
  readonly #hashes = new Map<string, string>();
  #v2Protobuf: Buffer | undefined;

  /** Builds nothing until asked. */
  constructor(init: OpenApiInit) {
    this.#init = init;
  }

  /**
   * The document of one group-version, or undefined when not served. It carries a schema per kind
   * with `x-kubernetes-group-version-kind`, and the `fieldValidation` parameter on writes, which
   * is how kubectl decides to validate on the server.
   */
  document(path: string): Record<string, unknown> | undefined {
    const { registry, gitVersion, serverName } = this.#init;
    const served = registry.servedGroupVersions().find((entry) => openApiPath(entry.group, entry.version) === path);
    if (served === undefined) return undefined;
    const types = registry.resourcesOf(served.group, served.version);
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: gitVersion },
      paths: Object.assign({}, ...types.map(paths)) as Record<string, unknown>,
      components: { schemas: Object.assign({ ...COMMON_SCHEMAS }, ...types.map((type) => schemas(type, serverName))) as Record<string, unknown> },
    };
  }

  /**
   * `GET /openapi/v2`: the Swagger 2.0 document of every served group-version (kubectl explain
   * and clients that predate OpenAPI v3 read it), converted from the v3 documents.
   */
  documentV2(): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    const definitions: Record<string, unknown> = {};
    for (const { group, version } of this.#init.registry.servedGroupVersions()) {
      const document = this.document(openApiPath(group, version)) as { paths: Record<string, Schema>; components: { schemas: Record<string, Schema> } };
      for (const [path, item] of Object.entries(document.paths)) paths[path] = pathItemV2(item);
      for (const [name, schema] of Object.entries(document.components.schemas)) definitions[name] = schemaV2(schema);
    }
    return { swagger: '2.0', info: { title: 'Kubernetes', version: this.#init.gitVersion }, paths, definitions };
  }

  /** `GET /openapi/v2` as protobuf ({@link encodeOpenApiV2}), encoded once. */
  documentV2Protobuf(): Buffer {
    this.#v2Protobuf ??= encodeOpenApiV2(this.documentV2());
    return this.#v2Protobuf;
  }

  /** A stable hash of a group-version's document, used in `serverRelativeURL` like the real server. */
  hash(path: string): string {
    let hash = this.#hashes.get(path);
    if (hash === undefined) {
      hash = createHash('sha512').update(JSON.stringify(this.document(path) ?? {})).digest('hex').slice(0, 128).toUpperCase();
      this.#hashes.set(path, hash);
    }
    return hash;
  }

  /** `GET /openapi/v3`: the index of group-version documents. */
  index(): Record<string, unknown> {
    const index: Record<string, unknown> = {};
    for (const { group, version } of this.#init.registry.servedGroupVersions()) {
      const path = openApiPath(group, version);
      index[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${this.hash(path)}` };
    }
    return { paths: index };
  }
}
