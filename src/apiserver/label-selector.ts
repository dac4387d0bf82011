import { badRequest } from '../apimachinery/index.js';
import { labelKeyError, labelValueError } from './metadata-validation.js';

/** One requirement of a label selector. */
export type LabelRequirement =
  | { operator: 'exists' | 'notexists'; key: string }
  | { operator: 'in' | 'notin'; key: string; values: readonly string[] }
  | { operator: 'gt' | 'lt'; key: string; value: number };

/** A parsed label selector: every requirement must hold. The empty selector matches everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function fail(selector: string, why: string): never {
  throw badRequest(`unable to parse requirement: ${why} (in selector "${selector}")`);
}

function checkKey(selector: string, key: string): string {
  const error = labelKeyError(key);
  if (error !== undefined) fail(selector, `invalid label key "${key}": ${error}`);
  return key;
}

function checkValue(selector: string, value: string): string {
  const error = labelValueError(value);
  if (error !== undefined) fail(selector, `invalid label value: "${value}": ${error}`);
  return value;
}

const SET_PATTERN = /^([^\s!=<>()]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALITY_PATTERN = /^([^\s!=<>()]+)\s*(==|!=|=|>|<)\s*([^\s=!<>()]*)$/;

function parseRequirement(selector: string, raw: string): LabelRequirement {
  const text = raw.trim();
  if (text === '') fail(selector, 'found empty requirement');
  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    if (!/^[^\s!=<>(),]+$/.test(key)) fail(selector, `invalid "does not exist" requirement "${text}"`);
    return { operator: 'notexists', key: checkKey(selector, key) };
  }
  const set = SET_PATTERN.exec(text);
  if (set !== null) {
    const [, key = '', operator, list = ''] = set;
    if (list.trim() === '') fail(selector, `for '${operator ?? 'in'}' operator, values set can't be empty`);
    return {
      operator: operator === 'in' ? 'in' : 'notin',
      key: checkKey(selector, key),
      values: list.split(',').map((value) => checkValue(selector, value.trim())),
    };
  }
  const equality = EQUALITY_PATTERN.exec(text);
  if (equality !== null) {
    const [, key = '', operator = '', value = ''] = equality;
    checkKey(selector, key);
    if (operator === '>' || operator === '<') {
      const number = Number(value);
      if (value === '' || !Number.isInteger(number)) fail(selector, `for 'Gt', 'Lt' operators, the value must be an integer`);
      return { operator: operator === '>' ? 'gt' : 'lt', key, value: number };
    }
    return { operator: operator === '!=' ? 'notin' : 'in', key, values: [checkValue(selector, value)] };
  }
  if (/^[^\s!=<>(),]+$/.test(text)) return { operator: 'exists', key: checkKey(selector, text) };
  return fail(selector, `invalid requirement "${text}"`);
}

function requirementMatches(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'in':
      return has && requirement.values.includes(value ?? '');
    case 'notin':
      return !has || !requirement.values.includes(value ?? '');
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const number = Number(value);
      if (value === undefined || value === '' || !Number.isInteger(number)) return false;
      return requirement.operator === 'gt' ? number > requirement.value : number < requirement.value;
    }
  }
}

/**
 * Parses a label selector in Kubernetes' string syntax: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`, joined by commas. Throws a 400 {@link ApiError} on bad
 * syntax or invalid keys/values. `!=` and `notin` also match objects without the key.
 */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  const requirements = selector === undefined || selector.trim() === '' ? [] : splitTopLevel(selector).map((part) => parseRequirement(selector, part));
  return {
    requirements,
    matches(labels) {
      const actual = labels ?? {};
      return requirements.every((requirement) => requirementMatches(requirement, actual));
    },
  };
}
