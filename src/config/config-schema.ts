import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { TObject } from '@sinclair/typebox';
import type { Ajv as AjvType, Options as AjvOptions, ValidateFunction } from 'ajv';
import type { ConfigRule, ConfigSection, ConfigValidator } from './config-section.js';
import { buildVclusterConfigSchema } from './schema.js';

/**
 * The vcluster.yaml schema of one set of resource sections, assembled by
 * {@link assembleConfigSchema}: what parsing, defaults, validation and the published JSON Schema
 * are made of. Immutable; the ajv validator is compiled on first use.
 */
export interface ConfigSchema {
  /** The sections, in the order given. */
  readonly sections: readonly ConfigSection[];
  /** The whole file's TypeBox schema. */
  readonly schema: TObject;
  /** Every section's cross-key rules, in section order. */
  readonly rules: readonly ConfigRule[];
  /** Every section's validators, in section order. */
  readonly validators: readonly ConfigValidator[];
  /**
   * The validator of {@link schema}: the precompiled one handed to {@link assembleConfigSchema}
   * when it was generated from this very schema, otherwise compiled by ajv on the first call.
   */
  validator(): ValidateFunction;
}

/**
 * A validator generated ahead of time from a schema (ajv standalone code, see
 * `config-validator-code.ts`), with the fingerprint of the schema it was generated from.
 */
export interface PrecompiledConfigValidator {
  /** {@link configSchemaFingerprint} of the schema the code was generated from. */
  readonly fingerprint: string;
  readonly validate: ValidateFunction;
}

/** Options of {@link assembleConfigSchema}. */
export interface AssembleConfigSchemaOptions {
  /**
   * Used instead of compiling the schema when its fingerprint is the assembled schema's (saves
   * loading ajv and compiling at start); ignored otherwise. Default none.
   */
  precompiled?: PrecompiledConfigValidator;
}

/** The ajv options of the config validator, at run time and in generated code alike. */
export const CONFIG_AJV_OPTIONS: Readonly<AjvOptions> = Object.freeze({ allErrors: true, verbose: true, strict: true });

/** The key of `sync.toHost` that vcsync reads itself; no resource section may take it. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['namespaces']);

/**
 * What a validator generated from `schema` must match: a hash of the schema's JSON (every keyword
 * and description; TypeBox's symbol-keyed metadata is not part of it). Any change of a section, of
 * a description or of the key order changes it.
 */
export function configSchemaFingerprint(schema: TObject): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/**
 * A new ajv instance with {@link CONFIG_AJV_OPTIONS} (and `extra`). ajv is loaded on the first
 * call, not with this module: a start whose validator was precompiled never loads it.
 */
export function newConfigAjv(extra: AjvOptions = {}): AjvType {
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  return new Ajv({ ...CONFIG_AJV_OPTIONS, ...extra });
}

/**
 * Assembles the vcluster.yaml schema from the resource sections it is handed (the registry's, in
 * the daemon and the commands; a test's own). The config module knows no resource: everything
 * about `sync.toHost.<key>` comes from its section. Throws (a programming error, not a config
 * error) when two sections share a key or a section takes `namespaces`.
 */
export function assembleConfigSchema(sections: readonly ConfigSection[], options: AssembleConfigSchemaOptions = {}): ConfigSchema {
  const seen = new Set<string>();
  for (const section of sections) {
    if (RESERVED_KEYS.has(section.key)) throw new Error(`config section sync.toHost.${section.key}: the key is vcsync's own, not a resource's; name the section after its resource`);
    if (seen.has(section.key)) throw new Error(`config section sync.toHost.${section.key} is handed twice; each resource declares its section once`);
    seen.add(section.key);
  }
  const schema = buildVclusterConfigSchema(sections);
  const { precompiled } = options;
  let compiled: ValidateFunction | undefined;
  return Object.freeze({
    sections: Object.freeze([...sections]),
    schema,
    rules: Object.freeze(sections.flatMap((section) => section.rules)),
    validators: Object.freeze(sections.flatMap((section) => section.validators)),
    validator(): ValidateFunction {
      if (compiled !== undefined) return compiled;
      compiled = precompiled !== undefined && precompiled.fingerprint === configSchemaFingerprint(schema) ? precompiled.validate : newConfigAjv().compile(schema);
      return compiled;
    },
  });
}
