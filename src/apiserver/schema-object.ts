/** An OpenAPI v3 schema object (or any part of an OpenAPI document), as plain JSON. */
export type SchemaObject = Record<string, unknown>;
