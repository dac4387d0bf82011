import { assembleConfigSchema, type ConfigSchema } from '../config/config-schema.js';
import { endpointsSyncable } from './endpoints/endpoints-syncable.js';
import { endpointSlicesDeclaration } from './endpointslices/endpointslices-declaration.js';
import type { ResourceDeclaration, SyncableResource } from './syncable-resource.js';

/**
 * The resources vcsync syncs, as vcluster's register.go: `start`, `dev`, `preview` and `validate`
 * iterate this list and name no resource themselves.
 *
 * How to add a resource synced virtual → host (see endpoints/ for the full example):
 * 1. A folder under syncer/ (e.g. `configmaps/`) with its pure translation and its rules, a
 *    {@link ToHostResource} (`ignores`, `decide`, `hostFields`, `excludedAnnotations`).
 * 2. Its {@link ToHostDefinition} beside them: the virtual informer's name and cache transform,
 *    the host informer's name, and the secondary virtual informers its rules read (name, type,
 *    transform, `keysFor`: which keys a change wakes). No informers, queue or controller are
 *    wired by hand: `toHostSyncer(definition)` does that.
 * 3. Its {@link SyncableResource} (name, kind, config checks, state, `build:
 *    toHostSyncer(definition)`, `previewResource` from `definition.rules` with lookups of the
 *    preview's inputs), exported from the folder.
 * 4. One line: the export in the list below.
 *
 * @see ToHostResource in to-host-resource.ts
 * @see ToHostDefinition in to-host-syncer.ts
 */
export const SYNCABLE_RESOURCES: readonly SyncableResource[] = Object.freeze([endpointsSyncable]);

/**
 * Resources declared before their syncer is registered: their config section is checked and
 * defaulted (so a vcluster 0.30 config with `sync.toHost.endpointSlices` validates, and its
 * patches are compiled), and their RBAC needs are in the deploy manifests. An entry leaves this
 * list when its resource joins {@link SYNCABLE_RESOURCES}.
 */
const DECLARED_ONLY: readonly ResourceDeclaration[] = Object.freeze([endpointSlicesDeclaration]);

/**
 * Every resource the registry declares, given `resources` (default {@link SYNCABLE_RESOURCES}):
 * them, then each declared-only resource whose section none of them has.
 */
export function declaredResources(resources: readonly ResourceDeclaration[] = SYNCABLE_RESOURCES): readonly ResourceDeclaration[] {
  const keys = new Set(resources.map((resource) => resource.config.key));
  return [...resources, ...DECLARED_ONLY.filter((declared) => !keys.has(declared.config.key))];
}

const schemas = new WeakMap<readonly ResourceDeclaration[], ConfigSchema>();

/**
 * The vcluster.yaml schema of `resources` (default {@link SYNCABLE_RESOURCES}) and the declared
 * ones: what `validate`, `preview`, `start`, `dev` and every reload parse with. Assembled once per
 * list (the same array gives the same schema, so its validator compiles once).
 */
export function registryConfigSchema(resources: readonly ResourceDeclaration[] = SYNCABLE_RESOURCES): ConfigSchema {
  let schema = schemas.get(resources);
  if (schema === undefined) {
    schema = assembleConfigSchema(declaredResources(resources).map((resource) => resource.config));
    schemas.set(resources, schema);
  }
  return schema;
}
