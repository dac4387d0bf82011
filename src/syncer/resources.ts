import { assembleConfigSchema, type ConfigSchema } from '../config/config-schema.js';
import { precompiledConfigValidator } from './precompiled-config-validator.js';
import { endpointsSyncable } from './endpoints/endpoints-syncable.js';
import { endpointSlicesSyncable } from './endpointslices/endpointslices-syncable.js';
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
export const SYNCABLE_RESOURCES: readonly SyncableResource[] = Object.freeze([endpointsSyncable, endpointSlicesSyncable]);

const schemas = new WeakMap<readonly ResourceDeclaration[], ConfigSchema>();

/**
 * The vcluster.yaml schema of `resources` (default {@link SYNCABLE_RESOURCES}): what `validate`,
 * `preview`, `start`, `dev` and every reload parse with. Assembled once per list (the same array
 * gives the same schema, so its validator compiles once). The registry's validator is
 * precompiled (`precompiled-config-validator.ts`, written by `npm run generate`): a start neither
 * loads ajv nor compiles, and any other list (or a registry changed without regenerating) is
 * compiled at its first validation.
 */
export function registryConfigSchema(resources: readonly ResourceDeclaration[] = SYNCABLE_RESOURCES): ConfigSchema {
  let schema = schemas.get(resources);
  if (schema === undefined) {
    schema = assembleConfigSchema(
      resources.map((resource) => resource.config),
      { precompiled: precompiledConfigValidator },
    );
    schemas.set(resources, schema);
  }
  return schema;
}
