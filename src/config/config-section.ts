import { Type, type TObject } from '@sinclair/typebox';
import type { ConfigError } from './config-error.js';
import type { ConfigPath } from './config-path.js';
import type { ConfigSource } from './config-source.js';
import { patchSchema, type DeepReadonly, type PatchConfig, type VclusterConfig } from './schema.js';

/**
 * A component's check of a config, beyond the schema (the patch engine's compile check). It gets
 * the data exactly as written (deep-frozen, before defaults) and runs whether or not the schema
 * passed, so one run reports every problem: it must not trust the data's types, and must not
 * throw for a bad config. It returns every problem it finds, located with `locatedConfigError`
 * (or `configErrorAt`) from `parse-config.ts`; an empty list means none.
 */
export type ConfigValidator = (
  written: unknown,
  source: ConfigSource,
) => readonly ConfigError[] | Promise<readonly ConfigError[]>;

/**
 * `sync.toHost.<key>` of a synced resource with defaults applied: what its syncer reads. Every
 * resource section has at least these two fields; a section may define more for its own syncer.
 */
export type ResourceSyncConfig = DeepReadonly<{ enabled: boolean; patches: PatchConfig[] }>;

/**
 * A problem a section's cross-key rule finds in the data as written. Located by the parser: at
 * the value at `path` (default), at the key naming it, or at the nearest part of it that exists.
 */
export interface ConfigRuleProblem {
  /** Stable code, one of `ConfigErrorCode`. */
  readonly code: string;
  readonly path: ConfigPath;
  /** What is wrong and what to do, without any position. */
  readonly message: string;
  readonly at?: 'value' | 'key' | 'nearest';
}

/**
 * A rule across keys of the file (e.g. "this sync needs host nodes"): gets the data exactly as
 * written (before defaults; it must not trust the types, the schema reports those) and returns
 * every problem. Pure.
 */
export type ConfigRule = (written: unknown) => readonly ConfigRuleProblem[];

/**
 * The config section of one synced resource, `sync.toHost.<key>`, as its folder declares it. The
 * config module assembles the vcluster.yaml schema, the defaults, the parser's rules and the
 * published JSON Schema from the sections it is handed, and knows no resource by name.
 */
export interface ConfigSection {
  /** The key under `sync.toHost`, as vcluster spells it, e.g. `endpoints`, `endpointSlices`. */
  readonly key: string;
  /**
   * The section's schema: a closed object (`additionalProperties: false`) with `enabled` and
   * `patches` (see {@link resourceSectionSchema}) and descriptions, which editors show.
   */
  readonly schema: TObject;
  /** The section when the file says nothing (or leaves a field out). */
  readonly defaults: ResourceSyncConfig;
  /** Its rules across keys; the parser runs them after the schema, on every parse. */
  readonly rules: readonly ConfigRule[];
  /**
   * Its checks beyond the schema that need another component (compiling its patches). `validate`,
   * start and every reload run them after the schema and the rules.
   */
  readonly validators: readonly ConfigValidator[];
}

/** What {@link resourceSectionSchema} words; each resource's folder says it for its own kind. */
export interface ResourceSectionWording {
  /** The whole section, e.g. "Endpoints syncing (virtual → host), performed by vcsync." */
  readonly section: string;
  /** `enabled`, with its default. */
  readonly enabled: string;
  /** `patches`, with its default. */
  readonly patches: string;
}

/**
 * The schema fragment of a resource section: `enabled` (boolean, default `defaultEnabled`) and
 * `patches` (the patch list every resource takes), closed, with the resource's own wording.
 */
export function resourceSectionSchema(defaultEnabled: boolean, wording: ResourceSectionWording): TObject {
  return Type.Object(
    {
      enabled: Type.Optional(Type.Boolean({ default: defaultEnabled, description: wording.enabled })),
      patches: Type.Optional(Type.Array(patchSchema, { default: [], description: wording.patches })),
    },
    { additionalProperties: false, description: wording.section },
  );
}

/** The path of a section's patch list, e.g. `['sync', 'toHost', 'endpoints', 'patches']`. */
export function sectionPatchesPath(section: Pick<ConfigSection, 'key'>): readonly string[] {
  return ['sync', 'toHost', section.key, 'patches'];
}

/** The path of a section, e.g. `['sync', 'toHost', 'endpoints']`. */
export function sectionPath(section: Pick<ConfigSection, 'key'>): readonly string[] {
  return ['sync', 'toHost', section.key];
}

/**
 * A resource's section of a merged configuration. A config parsed with this section holds it
 * with defaults applied; one parsed without it (a test's `defaultConfig()`) gets the section's
 * defaults, so a syncer never reads a missing section.
 */
export function sectionConfig(config: VclusterConfig, section: Pick<ConfigSection, 'key' | 'defaults'>): ResourceSyncConfig {
  const value = config.sync.toHost[section.key];
  return typeof value === 'object' && value !== null ? (value as ResourceSyncConfig) : section.defaults;
}
