import { describe, expect, it } from 'vitest';
import type { StorageEvent } from '../../../src/apiserver/storage.js';
import { ChangeLog } from '../../../src/management/change-log.js';

function change(name: string, resourceVersion: string): { ref: { resource: string; namespace: string; name: string }; event: StorageEvent } {
  return { ref: { resource: 'r', namespace: '', name }, event: { type: 'ADDED', object: { metadata: { name, resourceVersion } }, replayed: false } };
}

function names(changes: ReturnType<ChangeLog['since']>): string[] | undefined {
  return changes?.map((entry) => entry.ref.name);
}

describe('ChangeLog', () => {
  it('answers the changes after any resourceVersion it reached, opaque strings in arrival order', () => {
    const log = new ChangeLog(10);
    log.reached('z');
    for (const [name, version] of [['a', 'y'], ['b', 'x'], ['c', 'w']] as const) {
      log.append(change(name, version));
      log.reached(version);
    }
    expect(log.latest).toBe('w');
    expect(names(log.since('z'))).toEqual(['a', 'b', 'c']);
    expect(names(log.since('x'))).toEqual(['c']);
    expect(names(log.since('w'))).toEqual([]);
    expect(log.since('never')).toBeUndefined();
  });

  it('forgets what falls out of its window, and counts changes it was told not to keep', () => {
    const log = new ChangeLog(2);
    log.append(change('listed', '1'), false);
    log.reached('1');
    for (const version of ['2', '3', '4']) {
      log.append(change(`c${version}`, version));
      log.reached(version);
    }
    expect(log.since('1')).toBeUndefined();
    expect(log.has('2')).toBe(true);
    expect(names(log.since('2'))).toEqual(['c3', 'c4']);
  });

  it('keeps at most twice its window of resourceVersions however many bookmarks arrive', () => {
    const log = new ChangeLog(2);
    for (let version = 1; version <= 10; version += 1) log.reached(String(version));
    expect([log.has('6'), log.has('7'), log.has('10')]).toEqual([false, true, true]);
    expect(names(log.since('7'))).toEqual([]);
  });
});
