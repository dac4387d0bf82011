/**
 * Which changes of an OwnedAccessKey give it more reach: a write that makes a key do
 * more, or work when it did not, is a new credential as much as a create is, so the caller must be
 * one who could have created the resulting key (`checkEscalation` in `key-ownership.ts`). Pure:
 * the stored and the resulting object in, the widening changes out; no clock is needed, as a
 * change of lifetime is judged by comparing the two expiry times.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type JsonObject } from '../apimachinery/index.js';
import type { AccessScope } from './access-scope.js';
import { isKeyHash } from './access-key-hasher.js';
import { expiresAtMs, specOf } from './owned-access-key-kind.js';
import { scopeExcess } from './scope-subset.js';

/** One change that widens a key: the field path that carries it and why it widens. */
export interface KeyWidening {
  field: string;
  why: string;
}

function scopeOf(spec: JsonObject): AccessScope | undefined {
  const scope = spec['scope'];
  return scope === undefined || scope === null ? undefined : (scope as AccessScope);
}

function groupsOf(spec: JsonObject): string[] {
  const groups = spec['groups'];
  return Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [];
}

function statusOf(object: JsonObject): JsonObject {
  const status = object['status'];
  return isJsonObject(status) ? status : {};
}

function instant(ms: number | undefined): string {
  return ms === undefined ? 'never' : new Date(ms).toISOString();
}

/**
 * The changes from `previous` (stored) to `next` (what the write would store, before the key value
 * is hashed) that widen the key, in field order; empty when the write only narrows it or changes
 * nothing that decides what it can do or when it works. Widening:
 * - `spec.key`: a key value is written (a plain value, or a hash other than the stored one): whoever
 *   chose it holds a credential with the key's reach;
 * - `spec.disabled`: true → anything else (enabling is reviving);
 * - `spec.ttl`, `spec.ttlAfterLastActivity`, `status.lastActivity`: the key expires later than it
 *   did, or no longer expires (this includes reviving an expired key);
 * - `spec.scope`: the new scope is not within the old one (`scopeExcess`, conservative);
 * - `spec.groups`: a group the key did not have;
 * - `spec.user`, `spec.team`, `spec.subject`: any change of whom the key authenticates as.
 */
export function keyWidenings(previous: JsonObject, next: JsonObject): KeyWidening[] {
  const before = specOf(previous);
  const after = specOf(next);
  const widenings: KeyWidening[] = [];
  const key = after['key'];
  if (typeof key === 'string' && key !== '' && !(isKeyHash(key) && key === before['key'])) {
    widenings.push({ field: 'spec.key', why: 'writing a key value makes a new credential with the reach of this key' });
  }
  if (before['disabled'] === true && after['disabled'] !== true) {
    widenings.push({ field: 'spec.disabled', why: 'enabling a disabled key revives it' });
  }
  const expiredBefore = expiresAtMs(previous);
  const expiresAfter = expiresAtMs(next);
  if (expiredBefore !== undefined && (expiresAfter === undefined || expiresAfter > expiredBefore)) {
    const lifeFields = [
      ['spec.ttl', before['ttl'], after['ttl']],
      ['spec.ttlAfterLastActivity', before['ttlAfterLastActivity'], after['ttlAfterLastActivity']],
      ['status.lastActivity', statusOf(previous)['lastActivity'], statusOf(next)['lastActivity']],
    ] as const;
    const field = lifeFields.find(([, was, is]) => !isDeepStrictEqual(was, is))?.[0] ?? 'spec.ttl';
    widenings.push({ field, why: `the key would expire ${instant(expiresAfter)} instead of ${instant(expiredBefore)}; extending a key's life, or reviving an expired key, counts as creating it` });
  }
  const excess = scopeExcess(scopeOf(before), scopeOf(after));
  if (excess !== undefined) {
    widenings.push({ field: excess === '' ? 'spec.scope' : `spec.scope.${excess}`, why: 'the new scope reaches beyond the key\'s current scope' });
  }
  const had = groupsOf(before);
  const added = groupsOf(after).filter((group) => !had.includes(group));
  if (added.length > 0) {
    widenings.push({ field: 'spec.groups', why: `adds ${added.map((group) => JSON.stringify(group)).join(', ')} to the key's groups` });
  }
  const named = (value: unknown): unknown => (value === '' || value === null ? undefined : value);
  for (const owner of ['user', 'team', 'subject'] as const) {
    if (!isDeepStrictEqual(named(before[owner]), named(after[owner]))) {
      widenings.push({ field: `spec.${owner}`, why: 'changes whom the key authenticates as' });
    }
  }
  return widenings;
}
