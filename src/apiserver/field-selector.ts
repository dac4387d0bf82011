import { badRequest } from '../apimachinery/index.js';
import type { StoredObject } from './storage.js';

/** The fields every resource supports in field selectors. */
export const SELECTABLE_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/** What a kind adds to {@link SELECTABLE_FIELDS}. */
export interface KindSelectableFields {
  /** Extra fields the kind's objects can be selected by (Events by involved object, etc.). */
  readonly selectableFields: readonly string[];
  /** Selectable fields that read another path of the object, e.g. Events' `source` → `source.component`. */
  readonly selectableFieldPaths: Readonly<Record<string, string>>;
}

const NO_EXTRA_FIELDS: KindSelectableFields = { selectableFields: [], selectableFieldPaths: {} };

/** One `field=value` or `field!=value` term. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: 'equals' | 'notequals';
  readonly value: string;
}

/** A parsed field selector: every requirement must hold. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  matches(object: StoredObject): boolean;
  /** The value the selector pins `metadata.name` to, if it does (`metadata.name=x`). */
  readonly exactName: string | undefined;
}

function fieldValue(object: StoredObject, field: string, paths: Readonly<Record<string, string>>): string {
  if (field === 'metadata.name') return object.metadata.name;
  if (field === 'metadata.namespace') return object.metadata.namespace ?? '';
  const path = (paths[field] ?? field).split('.');
  let value: unknown = object;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/**
 * Parses a field selector (`metadata.name=web,metadata.namespace!=kube-system`) for objects of a
 * kind. Only {@link SELECTABLE_FIELDS} and the kind's own selectable fields are supported; any other field, or bad syntax, throws a 400 {@link ApiError}, as the real server
 * does ("field label not supported").
 */
export function parseFieldSelector(selector: string | undefined, kind: KindSelectableFields = NO_EXTRA_FIELDS): FieldSelector {
  const supported = [...SELECTABLE_FIELDS, ...kind.selectableFields];
  const requirements: FieldRequirement[] = [];
  if (selector !== undefined && selector.trim() !== '') {
    for (const raw of selector.split(',')) {
      const match = /^\s*([^=!\s]+)\s*(==|!=|=)\s*([^=!]*?)\s*$/.exec(raw);
      if (match === null) throw badRequest(`invalid field selector: '${raw}': invalid selector: '${selector}'; can't understand '${raw}'`);
      const [, field = '', operator, value = ''] = match;
      if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`);
      requirements.push({ field, operator: operator === '!=' ? 'notequals' : 'equals', value });
    }
  }
  const nameTerm = requirements.find((requirement) => requirement.field === 'metadata.name' && requirement.operator === 'equals');
  return {
    requirements,
    exactName: nameTerm?.value,
    matches(object) {
      return requirements.every((requirement) => (fieldValue(object, requirement.field, kind.selectableFieldPaths) === requirement.value) === (requirement.operator === 'equals'));
    },
  };
}
