import type { TObject } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
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
  /** The compiled validator of {@link schema} (compiled once, on the first call). */
  validator(): ValidateFunction;
}

/** The key of `sync.toHost` that vcsync reads itself; no resource section may take it. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['namespaces']);

/**
 * Assembles the vcluster.yaml schema from the resource sections it is handed (the registry's, in
 * the daemon and the commands; a test's own). The config module knows no resource: everything
 * about `sync.toHost.<key>` comes from its section. Throws (a programming error, not a config
 * error) when two sections share a key or a section takes `namespaces`.
 */
export function assembleConfigSchema(sections: readonly ConfigSection[]): ConfigSchema {
  const seen = new Set<string>();
  for (const section of sections) {
    if (RESERVED_KEYS.has(section.key)) throw new Error(`config section sync.toHost.${section.key}: the key is vcsync's own, not a resource's; name the section after its resource`);
    if (seen.has(section.key)) throw new Error(`config section sync.toHost.${section.key} is handed twice; each resource declares its section once`);
    seen.add(section.key);
  }
  const schema = buildVclusterConfigSchema(sections);
  let compiled: ValidateFunction | undefined;
  return Object.freeze({
    sections: Object.freeze([...sections]),
    schema,
    rules: Object.freeze(sections.flatMap((section) => section.rules)),
    validators: Object.freeze(sections.flatMap((section) => section.validators)),
    validator(): ValidateFunction {
      compiled ??= new Ajv({ allErrors: true, verbose: true, strict: true }).compile(schema);
      return compiled;
    },
  });
}
