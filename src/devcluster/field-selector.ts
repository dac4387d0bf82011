import { badRequest } from './api-error.js';
import type { StoredObject } from './storage/types.js';

/** The fields every resource supports in field selectors. */
export const SELECTABLE_FIELDS: readonly string[] = ['metadata.name', 'metadata.namespace'];

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

function fieldValue(object: StoredObject, field: string): string {
  return field === 'metadata.name' ? object.metadata.name : (object.metadata.namespace ?? '');
}

/**
 * Parses a field selector (`metadata.name=web,metadata.namespace!=kube-system`). Only
 * {@link SELECTABLE_FIELDS} are supported; any other field, or bad syntax, throws a 400
 * {@link ApiError}, as the real server does ("field label not supported").
 */
export function parseFieldSelector(selector: string | undefined): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (selector !== undefined && selector.trim() !== '') {
    for (const raw of selector.split(',')) {
      const match = /^\s*([^=!\s]+)\s*(==|!=|=)\s*([^=!]*?)\s*$/.exec(raw);
      if (match === null) throw badRequest(`invalid field selector: '${raw}': invalid selector: '${selector}'; can't understand '${raw}'`);
      const [, field = '', operator, value = ''] = match;
      if (!SELECTABLE_FIELDS.includes(field)) throw badRequest(`field label not supported: ${field}`);
      requirements.push({ field, operator: operator === '!=' ? 'notequals' : 'equals', value });
    }
  }
  const nameTerm = requirements.find((requirement) => requirement.field === 'metadata.name' && requirement.operator === 'equals');
  return {
    requirements,
    exactName: nameTerm?.value,
    matches(object) {
      return requirements.every((requirement) => (fieldValue(object, requirement.field) === requirement.value) === (requirement.operator === 'equals'));
    },
  };
}
