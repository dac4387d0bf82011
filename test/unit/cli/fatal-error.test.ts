import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../src/cli/command-error.js';
import { describeFatalError } from '../../../src/cli/fatal-error.js';
import { DataDirError } from '../../../src/devcluster/storage/data-dir-error.js';

describe('describeFatalError', () => {
  it('prints a command error as its located lines, with its exit code', () => {
    const error = new CommandError(['c.yaml:4:16 sync.toHost.endpoints.enabled: must be a boolean', 'c.yaml: 1 error']);
    expect(describeFatalError(error, 'start')).toEqual({ text: 'c.yaml:4:16 sync.toHost.endpoints.enabled: must be a boolean\nc.yaml: 1 error\n', exitCode: 1 });
    expect(describeFatalError(new CommandError(['vcsync start: bad'], { exitCode: 2 }), 'start').exitCode).toBe(2);
  });

  it('prints another catalogued error as its message, located by the command', () => {
    const error = new DataDirError('Locked', '/d/LOCK', '/d is in use by process 7 (lock file /d/LOCK); stop that process or use another data directory');
    expect(describeFatalError(error, 'devcluster')).toEqual({
      text: 'vcsync devcluster: /d is in use by process 7 (lock file /d/LOCK); stop that process or use another data directory\n',
      exitCode: 1,
    });
  });

  it('prints anything else with its stack, as a bug to report', () => {
    const { text, exitCode } = describeFatalError(new TypeError('x is undefined'), 'start');
    expect(text).toMatch(/^vcsync start: unexpected error: TypeError: x is undefined\n\s+at /);
    expect(exitCode).toBe(1);
    expect(describeFatalError('boom', '').text).toBe('vcsync: unexpected error: boom\n');
  });
});
