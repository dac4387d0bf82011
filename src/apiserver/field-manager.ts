/**
 * Who a write is recorded for in `metadata.managedFields`: the `fieldManager` of the request,
 * checked as the real server checks its Create/Update/PatchOptions, or a name derived from the
 * User-Agent. Pure.
 */
import { ApiError, type StatusCause } from '../apimachinery/index.js';
import type { WriteOptionsKind } from './field-validation.js';

/** The longest `fieldManager`, in bytes, as Kubernetes validates it. */
export const MAX_FIELD_MANAGER_LENGTH = 128;

/**
 * The manager of a write without `fieldManager`, as the real server derives it: the User-Agent up
 * to its first `/`, printable characters only, at most {@link MAX_FIELD_MANAGER_LENGTH}; `unknown`
 * when that leaves nothing.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = [...(userAgent ?? '').split('/')[0] ?? ''].filter((char) => /^\P{C}$/u.test(char)).join('');
  const manager = prefix.slice(0, MAX_FIELD_MANAGER_LENGTH);
  return manager === '' ? 'unknown' : manager;
}


/** What {@link fieldManagerOf} reads from a request. */
export interface FieldManagerRequest {
  kind: WriteOptionsKind;
  /** The `fieldManager` query parameter; undefined when absent. */
  fieldManager: string | undefined;
  userAgent: string | undefined;
  /** A server-side apply (then `fieldManager` is required). */
  apply: boolean;
  /** The `force` query parameter was given. */
  force: boolean;
}

/**
 * The manager of a write, after the checks the real server makes on its options: `fieldManager`
 * at most {@link MAX_FIELD_MANAGER_LENGTH} bytes of printable characters, required for apply, and
 * `force` only for apply; else a 422 Invalid about `<kind>.meta.k8s.io`. Without `fieldManager`
 * the manager comes from the User-Agent ({@link managerFromUserAgent}).
 */
export function fieldManagerOf(request: FieldManagerRequest): string {
  const given = request.fieldManager ?? '';
  const causes: StatusCause[] = [];
  if (!request.apply && request.force) causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' });
  if (request.apply && given === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' });
  if (Buffer.byteLength(given) > MAX_FIELD_MANAGER_LENGTH) {
    causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${MAX_FIELD_MANAGER_LENGTH} bytes`, field: 'fieldManager' });
  }
  const unprintable = [...given].findIndex((char) => !/^\P{C}$/u.test(char));
  if (unprintable >= 0) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(given)}: invalid characters at index ${unprintable}`, field: 'fieldManager' });
  }
  if (causes.length > 0) {
    const summary = causes.map((cause) => `${cause.field ?? ''}: ${cause.message}`);
    const list = summary.length === 1 ? (summary[0] ?? '') : `[${summary.join(', ')}]`;
    throw new ApiError('Invalid', `${request.kind}.meta.k8s.io "" is invalid: ${list}`, { group: 'meta.k8s.io', kind: request.kind, causes });
  }
  return given !== '' ? given : managerFromUserAgent(request.userAgent);
}
