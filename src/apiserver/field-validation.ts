import { badRequest } from './api-error.js';
import { knownFields } from './openapi.js';
import type { ResourceType } from './resource-type.js';

/** The `fieldValidation` query parameter of writes. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const MODES: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/**
 * Reads `fieldValidation`; absent means `Warn`, the API server's default since 1.27 (kubectl
 * itself sends `Strict`). Any other value is a 400, as on the real server.
 */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if ((MODES as readonly string[]).includes(value)) return value as FieldValidation;
  throw badRequest(`invalid fieldValidation: ${JSON.stringify(value)}: must be one of ${MODES.join(', ')}`);
}

/**
 * Drops the fields of `object` (a fresh copy, changed in place) that the kind's schema does not
 * know, at the top level and in `metadata`, as the real server's decoder does; deeper fields are
 * kept as sent. `Strict` refuses such an object with the server's 400 message instead; `Warn`
 * reports each dropped field through `warn` (the handler turns them into `Warning` headers).
 */
export function dropUnknownFields(
  type: ResourceType,
  object: Record<string, unknown>,
  mode: FieldValidation,
  warn: (message: string) => void,
): void {
  const known = knownFields(type);
  const unknown: string[] = [];
  for (const field of Object.keys(object)) {
    if (!known.topLevel.has(field)) unknown.push(field);
  }
  const metadata = object['metadata'];
  const meta = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
  for (const field of Object.keys(meta ?? {})) {
    if (!known.metadata.has(field)) unknown.push(`metadata.${field}`);
  }
  if (unknown.length === 0) return;
  const messages = unknown.map((field) => `unknown field ${JSON.stringify(field)}`);
  if (mode === 'Strict') {
    throw badRequest(`${type.kind} in version ${JSON.stringify(type.version)} cannot be handled as a ${type.kind}: strict decoding error: ${messages.join(', ')}`);
  }
  for (const field of unknown) {
    if (field.startsWith('metadata.')) delete meta?.[field.slice('metadata.'.length)];
    else delete object[field];
  }
  if (mode === 'Warn') for (const message of messages) warn(message);
}
