import { ApiError, type StatusCause } from '../apimachinery/index.js';

/** `resourceVersionMatch` of a list (or of a watch with `sendInitialEvents`). */
export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

/** What a list reads, from its `resourceVersion` options. */
export interface ListVersionOptions {
  /** The client's `resourceVersion` ('' when unset). */
  resourceVersion: string;
  /**
   * How `resourceVersion` applies: `Exact` lists the collection as it was at that version,
   * `NotOlderThan` (also when no version is given) lists a state at least as new.
   */
  match: ResourceVersionMatch;
}

const MATCH_VALUES: readonly string[] = ['Exact', 'NotOlderThan'];

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((one) => JSON.stringify(one)).join(', ')}`, field };
}

/**
 * 422 Invalid about the query options, as the real server words it:
 * `ListOptions.meta.k8s.io "" is invalid: <field>: <cause>` with group `meta.k8s.io`, kind
 * `ListOptions` and no name in the details.
 */
function invalidListOptions(causes: readonly StatusCause[]): ApiError {
  const summary = causes.map((cause) => `${cause.field ?? ''}: ${cause.message}`);
  const list = summary.length === 1 ? (summary[0] ?? '') : `[${summary.join(', ')}]`;
  return new ApiError('Invalid', `ListOptions.meta.k8s.io "" is invalid: ${list}`, { group: 'meta.k8s.io', kind: 'ListOptions', causes: [...causes] });
}

function sendInitialEventsOf(query: URLSearchParams): string | undefined {
  return query.get('sendInitialEvents') ?? undefined;
}

/**
 * Validates the version options of a list as the real server does (422 Invalid naming
 * `resourceVersionMatch` or `sendInitialEvents`) and says which state to list. `resourceVersionMatch`
 * needs a `resourceVersion`, no `continue`, one of `Exact`/`NotOlderThan`, and `Exact` not with
 * `resourceVersion=0`; `sendInitialEvents` belongs to watches. Without `resourceVersionMatch`, a
 * `limit` with a `resourceVersion` other than 0 lists that exact version, as on the real server.
 */
export function listVersionOptions(query: URLSearchParams, limit: number | undefined): ListVersionOptions {
  const resourceVersion = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const continueToken = query.get('continue') ?? '';
  const causes: StatusCause[] = [];
  if (match !== '') {
    if (resourceVersion === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (continueToken !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (!MATCH_VALUES.includes(match)) causes.push(notSupported('resourceVersionMatch', match, [...MATCH_VALUES, '']));
    if (match === 'Exact' && resourceVersion === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (sendInitialEventsOf(query) !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (causes.length > 0) throw invalidListOptions(causes);
  if (match === 'Exact') return { resourceVersion, match: 'Exact' };
  // The legacy rule of a paged list: a resourceVersion other than 0 with a limit is an exact read.
  const legacyExact = match === '' && limit !== undefined && limit > 0 && continueToken === '' && resourceVersion !== '' && resourceVersion !== '0';
  return { resourceVersion, match: legacyExact ? 'Exact' : 'NotOlderThan' };
}

/**
 * Validates the options of a watch as the real server does, before anything is streamed (422
 * Invalid): `sendInitialEvents` needs `resourceVersionMatch=NotOlderThan`, and
 * `resourceVersionMatch` is only for watches with `sendInitialEvents` and takes only
 * `NotOlderThan`.
 */
export function validateWatchOptions(query: URLSearchParams, sendInitialEvents: boolean | undefined): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const causes: StatusCause[] = [];
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match !== '') {
    if (sendInitialEvents === undefined) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if ((query.get('continue') ?? '') !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  if (causes.length > 0) throw invalidListOptions(causes);
}
