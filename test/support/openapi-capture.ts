import { openApiPath, reachableSchemas } from '../../src/apiserver/openapi.js';
import type { SchemaObject } from '../../src/apiserver/schema-object.js';
import type { RestClient } from '../../src/kube/rest-client.js';

/** A kind whose schema the capture keeps: its group-version and kind. */
export interface CapturedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The committed fixture: the real server's OpenAPI v3 schemas reachable from the served kinds. */
export interface SchemaFixture {
  /** How to regenerate the file. */
  readonly comment: string;
  /** The real server's gitVersion the schemas come from. */
  readonly serverVersion: string;
  /** The OpenAPI v3 component schemas, by name, keys sorted. */
  readonly schemas: Record<string, unknown>;
}

/** Schemas every server's documents reference besides the kinds' own (errors, deletes, patches, watches). */
const COMMON_ROOTS = [
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
];

function gvkMatches(schema: SchemaObject, wanted: ReadonlySet<string>): boolean {
  const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as CapturedKind[];
  return gvks.some((gvk) => wanted.has(`${gvk.group}/${gvk.version}/${gvk.kind}`));
}

/** `value` with every object's keys in code-point order, so the same input always serialises to the same bytes. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sortedKeys(item)]));
}

/**
 * The schemas of `documents` (OpenAPI v3 group-version documents) reachable from the kinds and
 * their lists, plus the common ones (Status, DeleteOptions, Patch, WatchEvent). Pure.
 */
export function servedSchemas(documents: readonly unknown[], kinds: readonly CapturedKind[]): Record<string, unknown> {
  const all: Record<string, SchemaObject> = {};
  for (const document of documents) Object.assign(all, (document as { components?: { schemas?: Record<string, SchemaObject> } }).components?.schemas ?? {});
  const wanted = new Set(kinds.flatMap((kind) => [`${kind.group}/${kind.version}/${kind.kind}`, `${kind.group}/${kind.version}/${kind.kind}List`]));
  const roots = Object.keys(all).filter((name) => gvkMatches(all[name] ?? {}, wanted));
  return sortedKeys(reachableSchemas(all, [...roots, ...COMMON_ROOTS])) as Record<string, unknown>;
}

/**
 * Fetches the real server's `/openapi/v3` documents of the group-versions of `kinds` and keeps
 * the schemas reachable from them, with the server's version.
 */
export async function captureSchemas(client: RestClient, kinds: readonly CapturedKind[], comment: string): Promise<SchemaFixture> {
  const version = await client.get<{ gitVersion: string }>('/version');
  const index = await client.get<{ paths: Record<string, { serverRelativeURL: string }> }>('/openapi/v3');
  const paths = [...new Set(kinds.map((kind) => openApiPath(kind.group, kind.version)))];
  const documents = await Promise.all(
    paths.map((path) => {
      const entry = index.paths[path];
      if (entry === undefined) throw new Error(`the real server serves no OpenAPI v3 document for ${path}`);
      // The hash in the URL only busts caches; the path alone names the document.
      return client.get<unknown>(entry.serverRelativeURL.split('?')[0] ?? entry.serverRelativeURL);
    }),
  );
  return { comment, serverVersion: version.gitVersion, schemas: servedSchemas(documents, kinds) };
}

/** The fixture file's bytes: two-space JSON and a final newline. */
export function fixtureText(fixture: SchemaFixture): string {
  return `${JSON.stringify(fixture, null, 2)}\n`;
}
