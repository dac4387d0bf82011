import type { ConfigSchema } from './config-schema.js';

/** Where the generated schema is published, relative to the repository root. */
export const CONFIG_JSON_SCHEMA_PATH = 'config/vcluster.schema.json';

/**
 * The JSON Schema (draft-07) of vcluster.yaml as vcsync reads it with `schema`'s sections,
 * generated from the one TypeBox schema, for editors:
 * `# yaml-language-server: $schema=./vcluster.schema.json`. A new object on each call.
 */
export function buildConfigJsonSchema(schema: ConfigSchema): Record<string, unknown> {
  // JSON round trip: drops TypeBox's symbol-keyed metadata, leaving plain JSON Schema.
  const plain = JSON.parse(JSON.stringify(schema.schema)) as Record<string, unknown>;
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...plain };
}

/**
 * The exact text of `config/vcluster.schema.json` for `schema` (the registry's, when published):
 * two-space indented, trailing newline. A unit test fails when the committed file differs from
 * the registry's; `npm run generate` rewrites it.
 */
export function renderConfigJsonSchema(schema: ConfigSchema): string {
  return `${JSON.stringify(buildConfigJsonSchema(schema), null, 2)}\n`;
}
