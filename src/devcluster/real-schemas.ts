/**
 * The real kube-apiserver's OpenAPI v3 schemas of the kinds the devcluster serves, from the
 * committed fixture `openapi/real-schemas.json` (regenerated from the real server by
 * `npm run openapi-fixture`). They drive the devcluster's OpenAPI documents, `kubectl explain`,
 * and the pruning and strict validation of every write.
 */
import type { KindSchema, SchemaObject } from '../apiserver/index.js';
import fixture from './openapi/real-schemas.json' with { type: 'json' };

/** The fixture's schemas, by component name. */
const COMPONENTS: Readonly<Record<string, SchemaObject>> = fixture.schemas as Record<string, SchemaObject>;

/** The kube-apiserver version the schemas were captured from. */
export const REAL_SCHEMAS_SERVER_VERSION: string = fixture.serverVersion;

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

function isKind(schema: SchemaObject, wanted: GroupVersionKind): boolean {
  const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as GroupVersionKind[];
  return gvks.some((gvk) => gvk.group === wanted.group && gvk.version === wanted.version && gvk.kind === wanted.kind);
}

/** The real schema of a kind, or undefined when the fixture has none (the capture covers every served kind). */
export function realKindSchema(wanted: GroupVersionKind): KindSchema | undefined {
  const name = Object.keys(COMPONENTS).find((candidate) => isKind(COMPONENTS[candidate] ?? {}, wanted));
  return name === undefined ? undefined : { name, components: COMPONENTS };
}
