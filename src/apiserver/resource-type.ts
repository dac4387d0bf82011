import type { KindSelectableFields } from './field-selector.js';
import type { GenerationPolicy } from './generation.js';
import type { KindProcedure, KindStrategy } from './kind-strategy.js';
import type { NameRule } from './metadata-validation.js';
import type { KindSchema } from './schema-pruning.js';
import type { ResourceId } from './storage.js';
import type { PatchStrategyTable } from './strategic-merge-patch.js';
import type { Subresource } from './subresource.js';
import { DEFAULT_COLUMNS, type TableColumn } from './table-column.js';

export type { GenerationPolicy } from './generation.js';
export type { NameRule } from './metadata-validation.js';

/** The verbs of one resource as discovery advertises them. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const PROCEDURE_VERBS: readonly Verb[] = ['create'];

/**
 * One kind a server on the core serves: its schema and its strategy, nothing of the pipeline.
 * Everything optional has the default a plain namespaced kind has on a real server.
 */
export interface KindDefinition {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Default: none. */
  readonly shortNames?: readonly string[];
  /** e.g. `all`. Default: none. */
  readonly categories?: readonly string[];
  /** Default true. */
  readonly namespaced?: boolean;
  /** Default: every verb. */
  readonly verbs?: readonly Verb[];
  /** Subresources served. Default: none. */
  readonly subresources?: readonly Subresource[];
  /** PUT on a missing object creates it (Kubernetes' AllowCreateOnUpdate). Default false. */
  readonly allowCreateOnUpdate?: boolean;
  /** DELETE answers the deleted object rather than a Success Status. Default false. */
  readonly returnDeletedObject?: boolean;
  /** Default `dns1123-subdomain`. */
  readonly nameRule?: NameRule;
  /** The columns of the Table view (`kubectl get`). Default NAME and AGE. */
  readonly columns?: readonly TableColumn[];
  /**
   * The kind's OpenAPI v3 schema (the devcluster's come from the real server): what the OpenAPI
   * documents describe and what writes are pruned to. Fields it does not know, at any depth, are
   * dropped, warned about or refused per `fieldValidation`. Default: apiVersion, kind and the
   * core's ObjectMeta, every other field kept as sent.
   */
  readonly schema?: KindSchema;
  /**
   * Writes are checked against the types (and `date-time` formats) of {@link schema}, a 422 for a
   * value of the wrong type, as the real server checks custom resources. Default false: the
   * devcluster's built-in kinds are type-checked by how their bodies decode.
   */
  readonly validatesSchemaTypes?: boolean;
  /** Field-selector fields besides metadata.name and metadata.namespace. Default: none. */
  readonly selectableFields?: readonly string[];
  /** Selectable fields that read another path, e.g. `source` → `source.component`. Default: none. */
  readonly selectableFieldPaths?: Readonly<Record<string, string>>;
  /** Lists that strategic merge patches merge instead of replacing. Default: none (ObjectMeta's only). */
  readonly mergeStrategies?: PatchStrategyTable;
  /** The kind's defaulting, validation and lifecycle hooks. Default: none. */
  readonly strategy?: KindStrategy;
  /** How `metadata.generation` is kept. Default `untracked` (the generic registry store: no generation of its own). */
  readonly generation?: GenerationPolicy;
  /**
   * Makes the kind one that is not stored: its only verb is `create`, answered by the procedure
   * (see {@link KindProcedure}). Default: none (a stored kind).
   */
  readonly procedure?: KindProcedure;
  /**
   * Subresources answered by a procedure, as the real server's `serviceaccounts/token`: a POST to
   * `<plural>/<name>/<action>` runs the action's `procedure` on a body of the action's kind (its
   * `kind`, `schema` and `strategy`; group and version are this kind's). The addressed object need
   * not be stored: the procedure decides what `<name>` may be. Default: none.
   */
  readonly actions?: Readonly<Record<string, Omit<KindDefinition, 'group' | 'version' | 'actions'>>>;
}

/**
 * One served resource, resolved from its {@link KindDefinition}: everything discovery, OpenAPI,
 * routing and the write rules need to know.
 */
export interface ResourceType extends KindSelectableFields {
  /** The storage partition, `<group or core>/<version>/<plural>`. */
  readonly id: ResourceId;
  readonly group: string;
  readonly version: string;
  /** `v1` or `<group>/<version>`: the objects' apiVersion. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  readonly subresources: readonly Subresource[];
  readonly allowCreateOnUpdate: boolean;
  readonly returnDeletedObject: boolean;
  readonly nameRule: NameRule;
  readonly columns: readonly TableColumn[];
  /** Undefined for a kind defined without one (see {@link KindDefinition.schema}). */
  readonly schema: KindSchema | undefined;
  readonly validatesSchemaTypes: boolean;
  readonly mergeStrategies: PatchStrategyTable;
  readonly strategy: KindStrategy;
  readonly generation: GenerationPolicy;
  /** Undefined for a stored kind (see {@link KindDefinition.procedure}). */
  readonly procedure: KindProcedure | undefined;
  /** The subresources answered by a procedure, by name, each resolved as a kind (see {@link KindDefinition.actions}). */
  readonly actions: ReadonlyMap<string, ResourceType>;
}

/** The storage partition of a kind: `<group or core>/<version>/<plural>`. */
export function resourceIdOf(definition: Pick<KindDefinition, 'group' | 'version' | 'plural'>): ResourceId {
  return `${definition.group === '' ? 'core' : definition.group}/${definition.version}/${definition.plural}`;
}

/** Resolves a {@link KindDefinition} into a frozen {@link ResourceType} with every default applied. */
export function resourceType(definition: KindDefinition): ResourceType {
  const actions = new Map<string, ResourceType>();
  for (const [name, action] of Object.entries(definition.actions ?? {})) {
    if (action.procedure === undefined) throw new TypeError(`the action ${definition.plural}/${name} has no procedure`);
    actions.set(name, resourceType({ ...action, group: definition.group, version: definition.version, namespaced: definition.namespaced ?? true }));
  }
  return Object.freeze({
    id: resourceIdOf(definition),
    group: definition.group,
    version: definition.version,
    apiVersion: definition.group === '' ? definition.version : `${definition.group}/${definition.version}`,
    kind: definition.kind,
    listKind: `${definition.kind}List`,
    plural: definition.plural,
    singular: definition.kind.toLowerCase(),
    shortNames: definition.shortNames ?? [],
    categories: definition.categories ?? [],
    namespaced: definition.namespaced ?? true,
    verbs: definition.procedure !== undefined ? PROCEDURE_VERBS : (definition.verbs ?? ALL_VERBS),
    subresources: definition.subresources ?? [],
    allowCreateOnUpdate: definition.allowCreateOnUpdate ?? false,
    returnDeletedObject: definition.returnDeletedObject ?? false,
    nameRule: definition.nameRule ?? 'dns1123-subdomain',
    columns: definition.columns ?? DEFAULT_COLUMNS,
    schema: definition.schema,
    validatesSchemaTypes: definition.validatesSchemaTypes ?? false,
    selectableFields: definition.selectableFields ?? [],
    selectableFieldPaths: definition.selectableFieldPaths ?? {},
    mergeStrategies: definition.mergeStrategies ?? {},
    strategy: definition.strategy ?? {},
    generation: definition.generation ?? 'untracked',
    procedure: definition.procedure,
    actions,
  });
}

/** A served group-version. */
export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * The resources one server serves, in discovery order (the order of the definitions). Lookups
 * by group, version and plural or kind; immutable after construction.
 */
export class ResourceRegistry {
  /** Every served resource, in discovery order. */
  readonly types: readonly ResourceType[];

  /** Resolves `definitions`; throws a TypeError when two define the same resource. */
  constructor(definitions: readonly KindDefinition[]) {
    const types = definitions.map(resourceType);
    const ids = new Set<string>();
    for (const type of types) {
      if (ids.has(type.id)) throw new TypeError(`the resource ${type.id} is defined twice`);
      ids.add(type.id);
    }
    this.types = Object.freeze(types);
  }

  /** The resource types of one group-version, in discovery order. */
  resourcesOf(group: string, version: string): ResourceType[] {
    return this.types.filter((type) => type.group === group && type.version === version);
  }

  /** The group-versions served, in discovery order (the core group first when it is served first). */
  servedGroupVersions(): GroupVersion[] {
    const seen = new Map<string, GroupVersion>();
    for (const type of this.types) seen.set(type.apiVersion, { group: type.group, version: type.version });
    return [...seen.values()];
  }

  /** The named groups served (not the core group), in discovery order. */
  namedGroups(): string[] {
    return [...new Set(this.types.filter((type) => type.group !== '').map((type) => type.group))];
  }

  /** Looks a resource up by group, version and plural; undefined when not served. */
  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((type) => type.group === group && type.version === version && type.plural === plural);
  }

  /** The resource of `kind` (the first one, if several versions serve it); throws when not served. */
  byKind(kind: string): ResourceType {
    const type = this.types.find((entry) => entry.kind === kind);
    if (type === undefined) throw new TypeError(`no served resource has the kind ${kind}`);
    return type;
  }
}
