import type { ResourceType } from './resource-type.js';
import type { StoredObject } from './storage.js';

/** `includeObject` of a Table request: what each row carries besides its cells. */
export type IncludeObject = 'None' | 'Object' | 'PartialObjectMetadata';

/** Parses `includeObject`; the real server's default is PartialObjectMetadata. */
export function parseIncludeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'PartialObjectMetadata';
}

/** The meta.k8s.io/v1 PartialObjectMetadata of an object: its metadata only. */
export function partialObjectMetadata(object: StoredObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/** List metadata of a Table. */
export interface TableListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * A meta.k8s.io/v1 Table of `objects` with `type`'s columns (what `kubectl get` prints), one row
 * per object; each row's `object` follows `includeObject`.
 */
export function toTable(type: ResourceType, objects: readonly StoredObject[], metadata: TableListMeta, includeObject: IncludeObject, nowMs: number): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: type.columns.map((column) => ({ name: column.name, type: column.type, format: column.format, description: column.description, priority: column.priority })),
    rows: objects.map((object) => {
      const row: Record<string, unknown> = { cells: type.columns.map((column) => column.cell(object, nowMs)) };
      if (includeObject === 'Object') row['object'] = object;
      else if (includeObject === 'PartialObjectMetadata') row['object'] = partialObjectMetadata(object);
      return row;
    }),
  };
}
