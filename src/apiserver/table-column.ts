import type { StoredObject } from './storage.js';

/** A cell value of a meta.k8s.io/v1 Table row. */
export type TableCell = string | number;

/** One column of a kind's Table view, like the printers of the real API server. */
export interface TableColumn {
  /** Column name as the server sends it (kubectl upper-cases it). */
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  /** `name` for the NAME column, '' otherwise. */
  readonly format: string;
  readonly description: string;
  /** 0 = always shown; 1 = only with `-o wide`. */
  readonly priority: number;
  /** The cell of one object; `nowMs` is the wall clock in ms (for ages). */
  cell(object: StoredObject, nowMs: number): TableCell;
}

/**
 * Formats an age like Kubernetes' `duration.HumanDuration`: `45s`, `5m3s`, `3h20m`, `12d`, `2y30d`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

function age(object: StoredObject, nowMs: number): string {
  const created = object.metadata['creationTimestamp'];
  if (typeof created !== 'string') return '<unknown>';
  const at = Date.parse(created);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(nowMs - at);
}

/** The NAME column every kind starts with. */
export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (object) => object.metadata.name,
};

/** The AGE column (from creationTimestamp). */
export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: age,
};

/** The columns of a kind without its own printer. */
export const DEFAULT_COLUMNS: readonly TableColumn[] = Object.freeze([NAME_COLUMN, AGE_COLUMN]);

/** A plain column: `type` defaults to `string`, `priority` to 0. */
export function tableColumn(name: string, description: string, cell: TableColumn['cell'], options: { type?: TableColumn['type']; priority?: number } = {}): TableColumn {
  return { name, type: options.type ?? 'string', format: '', description, priority: options.priority ?? 0, cell };
}
