import { Type, type Static, type TOptional, type TUnknown } from '@sinclair/typebox';
import {
  PRIVATE_NODES_KEYS,
  SYNC_FROM_HOST_KEYS,
  SYNC_TO_HOST_KEYS,
  TOP_LEVEL_KEYS,
} from './vcluster-keys.js';

/**
 * The vcluster.yaml schema, written once with TypeBox: it yields the TypeScript types below, the
 * validator (ajv, in `parse-config.ts`) and the published `config/vcluster.schema.json`.
 *
 * Every mapping on the way to what vcsync reads is closed (`additionalProperties: false`), with
 * vcluster's own keys (`vcluster-keys.ts`): the top level, `sync`, `sync.toHost`,
 * `sync.fromHost` and `privateNodes`. So a misspelt or misplaced key there (`toHots`,
 * `sync.toHost.endpoint`, `patches` one level too far left) is an error, not a silently ignored
 * section. vcsync owns `sync.toHost.endpoints` and `sync.toHost.namespaces`, closed down to their
 * leaves. The sections behind the other keys (`controlPlane`, `sync.toHost.pods`, …) are
 * vcluster's: any content is accepted there and ignored.
 */

/**
 * Accepts any value under each of `keys`: sections that are vcluster's to check, not vcsync's.
 * Spread it first and override the keys vcsync reads: they keep their place in vcluster's order
 * (which is the order of the "allowed keys" in error messages and of editors' completions).
 */
function acceptedAsWritten(keys: readonly string[], description: string): Record<string, TOptional<TUnknown>> {
  return Object.fromEntries(keys.map((key) => [key, Type.Optional(Type.Unknown({ description }))]));
}

const NOT_READ = "vcluster's setting; vcsync does not read it, and accepts any content here.";

/** `reference` mode of a patch: the value at `path` names another object. */
export const patchReferenceSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: 'apiVersion of the referenced object, e.g. `v1`.' })),
    apiVersionPath: Type.Optional(
      Type.String({
        description: 'Relative path that holds the apiVersion; when not found, `apiVersion` is used.',
      }),
    ),
    kind: Type.Optional(Type.String({ description: 'Kind of the referenced object, e.g. `Secret`.' })),
    kindPath: Type.Optional(
      Type.String({ description: 'Relative path that holds the kind; when not found, `kind` is used.' }),
    ),
    namePath: Type.Optional(
      Type.String({ description: 'Relative path of the referenced name inside the matched value.' }),
    ),
    namespacePath: Type.Optional(
      Type.String({
        description:
          "Relative path of the referenced namespace; when omitted or not found, the object's own namespace is used.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Treats the value at `path` as a reference to another object and rewrites it.',
  },
);

/** `labels` mode of a patch: the value at `path` is a label selector. It takes no options. */
export const patchLabelsSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    description: 'Treats the value at `path` as a label selector and translates its keys. Takes no options: `{}`.',
  },
);

/** One entry of `sync.toHost.endpoints.patches`. */
export const patchSchema = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      description:
        'Field path in the synced object, dot notation; `["key.with.dots"]` for keys with dots; `[*]` applies the patch to every array element or map key. A missing path skips the patch.',
    }),
    expression: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A single sandboxed ES6 expression that computes the host value (virtual → host). Runs only where the path exists. Variables: `value`, `valueExists` (always true), `context`.',
      }),
    ),
    reverseExpression: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A single sandboxed ES6 expression that computes the virtual value (host → virtual). Alone (without `expression`) it is a one-way host → virtual transform.',
      }),
    ),
    reference: Type.Optional(patchReferenceSchema),
    labels: Type.Optional(patchLabelsSchema),
  },
  {
    additionalProperties: false,
    description:
      'Overrides a default sync rule. Exactly one mode: `expression` and/or `reverseExpression`, `reference`, or `labels`.',
  },
);

/** `sync.toHost.endpoints`, owned by vcsync. */
export const endpointsSyncSchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Sync Endpoints created in the virtual cluster to the host cluster. Default true.',
      }),
    ),
    patches: Type.Optional(
      Type.Array(patchSchema, { default: [], description: 'Patches applied to synced Endpoints. Default none.' }),
    ),
  },
  { additionalProperties: false, description: 'Endpoints syncing (virtual → host), performed by vcsync.' },
);

/** `sync.toHost.endpointSlices`, owned by vcsync. */
export const endpointSlicesSyncSchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Sync EndpointSlices of Services without a selector from the virtual cluster to the host cluster. Default true.',
      }),
    ),
    patches: Type.Optional(
      Type.Array(patchSchema, { default: [], description: 'Patches applied to synced EndpointSlices. Default none.' }),
    ),
  },
  { additionalProperties: false, description: 'EndpointSlices syncing (virtual → host), performed by vcsync.' },
);

/** `sync.toHost.namespaces.mappings`. */
export const namespaceMappingsSchema = Type.Object(
  {
    byName: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        default: {},
        description:
          'Virtual namespace → host namespace. Exact names map to exact names; a pattern with one trailing `*` maps to a pattern with one trailing `*` (the matched suffix is carried over). `${name}` stands for the virtual cluster name on either side.',
      }),
    ),
  },
  { additionalProperties: false, description: 'How virtual namespaces map to host namespaces.' },
);

/** `sync.toHost.namespaces`, owned by vcsync (it decides where Endpoints land on the host). */
export const namespacesSyncSchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Multi-namespace mode: objects keep their names and land in the host namespace their virtual namespace maps to. Default false (everything in the one host namespace, with rewritten names).',
      }),
    ),
    mappingsOnly: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "When true, objects in virtual namespaces that match no mapping are not synced. When false (default), they are synced into the virtual cluster's own host namespace with rewritten names.",
      }),
    ),
    mappings: Type.Optional(namespaceMappingsSchema),
    extraLabels: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Labels vcluster adds to the host namespaces it creates. Accepted for compatibility; vcsync creates no namespaces.',
      }),
    ),
    patches: Type.Optional(
      Type.Array(patchSchema, {
        description: 'Patches for synced Namespace objects. Accepted for compatibility; vcsync syncs no Namespace objects.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Namespace mapping (multi-namespace mode).' },
);

/** `sync.toHost`: vcluster's resource keys; vcsync owns `endpoints` and `namespaces`. */
export const syncToHostSchema = Type.Object(
  {
    ...acceptedAsWritten(SYNC_TO_HOST_KEYS, NOT_READ),
    endpoints: Type.Optional(endpointsSyncSchema),
    endpointSlices: Type.Optional(endpointSlicesSyncSchema),
    namespaces: Type.Optional(namespacesSyncSchema),
  },
  { additionalProperties: false, description: 'Resources synced from the virtual to the host cluster.' },
);

/** `sync.fromHost`: vcluster's resource keys, none read by vcsync (known, so typos show). */
export const syncFromHostSchema = Type.Object(acceptedAsWritten(SYNC_FROM_HOST_KEYS, NOT_READ), {
  additionalProperties: false,
  description: 'Resources synced from the host to the virtual cluster. Not read by vcsync.',
});

/** `sync`: the two directions; vcsync reads `toHost`. */
export const syncSchema = Type.Object(
  {
    toHost: Type.Optional(syncToHostSchema),
    fromHost: Type.Optional(syncFromHostSchema),
  },
  { additionalProperties: false, description: 'Which resources sync in which direction.' },
);

/** `privateNodes`: vcsync reads `enabled` (Endpoints sync needs host nodes, seed §8). */
export const privateNodesSchema = Type.Object(
  {
    ...acceptedAsWritten(PRIVATE_NODES_KEYS, NOT_READ),
    enabled: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Worker nodes are private nodes joined to the virtual cluster instead of host nodes. Endpoints sync is only available with host nodes: with privateNodes.enabled true, sync.toHost.endpoints.enabled must be false.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Private nodes as the worker node type.' },
);

/** The whole vcluster.yaml as vcsync reads it. */
export const vclusterConfigSchema = Type.Object(
  {
    ...acceptedAsWritten(TOP_LEVEL_KEYS, NOT_READ),
    sync: Type.Optional(syncSchema),
    privateNodes: Type.Optional(privateNodesSchema),
  },
  {
    additionalProperties: false,
    title: 'vcluster.yaml (as read by vcsync)',
    description:
      "Virtual cluster configuration in the vcluster.yaml format. vcsync reads sync.toHost.endpoints, sync.toHost.namespaces and privateNodes.enabled; the keys on the way there are vcluster's and closed, other sections are accepted as written.",
  },
);

/** A patch entry exactly as written in the file. */
export type PatchConfig = Static<typeof patchSchema>;
/** The `reference` options of a patch. */
export type PatchReferenceConfig = Static<typeof patchReferenceSchema>;
/** The file's content as written (every field optional), after schema validation. */
export type VclusterConfigInput = Static<typeof vclusterConfigSchema>;

/** Recursively read-only view of a value (the merged config is deep-frozen at runtime). */
export type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** `sync.toHost.endpoints` with defaults applied (every field present). */
export type EndpointsSyncConfig = DeepReadonly<Required<Static<typeof endpointsSyncSchema>>>;

/** `sync.toHost.endpointSlices` with defaults applied (every field present). */
export type EndpointSlicesSyncConfig = DeepReadonly<Required<Static<typeof endpointSlicesSyncSchema>>>;

/** `sync.toHost.namespaces` with defaults applied (every field present). */
export type NamespacesSyncConfig = DeepReadonly<
  Omit<Required<Static<typeof namespacesSyncSchema>>, 'mappings'> & {
    mappings: Required<Static<typeof namespaceMappingsSchema>>;
  }
>;

/**
 * The configuration with defaults merged in and deep-frozen: what components receive and what
 * patch expressions see as `context.vcluster.config`. Keys vcsync ignores are kept as written.
 */
export type VclusterConfig = Readonly<{
  [key: string]: unknown;
  sync: Readonly<{
    [key: string]: unknown;
    toHost: Readonly<{
      [key: string]: unknown;
      endpoints: EndpointsSyncConfig;
      endpointSlices: EndpointSlicesSyncConfig;
      namespaces: NamespacesSyncConfig;
    }>;
  }>;
}>;
