import { describe, expect, it } from 'vitest';
import { describeFatalError } from '../../../src/cli/fatal-error.js';
import { DataDirError } from '../../../src/devcluster/storage/data-dir-error.js';

describe('describeFatalError', () => {
  it('prints a catalogued error as its message only', () => {
    const error = new DataDirError('Locked', '/d/LOCK', '/d is in use by process 7 (lock file /d/LOCK); stop that process or use another data directory');
    expect(describeFatalError(error)).toBe('vcsync: /d is in use by process 7 (lock file /d/LOCK); stop that process or use another data directory\n');
  });

  it('prints anything else with its stack, as a bug to report', () => {
    const text = describeFatalError(new TypeError('x is undefined'));
    expect(text).toMatch(/^vcsync: unexpected error: TypeError: x is undefined\n\s+at /);
    expect(describeFatalError('boom')).toBe('vcsync: unexpected error: boom\n');
  });
});
