import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseLockFile } from '../../../../src/devcluster/storage/data-dir-lock.js';
import { holdsLockAlive, ownStartTicks, parseProcStat } from '../../../../src/devcluster/storage/process-liveness.js';

describe('parseProcStat', () => {
  it('reads the state and start time after the last parenthesis of the command name', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'Z';
    fields[19] = '123456';
    expect(parseProcStat(`42 (node (x) y) ${fields.join(' ')}\n`)).toEqual({ state: 'Z', startTicks: '123456' });
  });

  it('refuses text of another shape', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('42 (node) S 1 2')).toBeUndefined();
    expect(parseProcStat(`42 (node) ${Array.from({ length: 30 }, () => 'x').join(' ')}`)).toBeUndefined();
  });

  it('reads this process as running, with the start time liveness compares', async () => {
    const own = parseProcStat(await readFile('/proc/self/stat', 'utf8'));
    expect(own?.state).toMatch(/^[RS]$/);
    expect(await ownStartTicks()).toBe(own?.startTicks);
  });
});

describe('parseLockFile', () => {
  it('reads the pid and the start time, and an older lock file with the pid alone', () => {
    expect(parseLockFile('123\nstart 987\n')).toEqual({ pid: 123, startTicks: '987' });
    expect(parseLockFile('123\n')).toEqual({ pid: 123, startTicks: undefined });
    expect(parseLockFile('garbage')).toEqual({ pid: undefined, startTicks: undefined });
  });
});

describe('holdsLockAlive', () => {
  it('is true for this process with its own start time and false for another start time', async () => {
    const start = await ownStartTicks();
    expect(await holdsLockAlive(process.pid, start)).toBe(true);
    expect(await holdsLockAlive(process.pid, undefined)).toBe(true);
    expect(await holdsLockAlive(process.pid, `${start ?? ''}0`)).toBe(false);
  });

  it('is false for a pid no process has', async () => {
    // Above the kernel's pid_max ceiling (2^22), so no process can have it.
    expect(await holdsLockAlive(4_194_305, undefined)).toBe(false);
  });
});
