import { readFile } from 'node:fs/promises';

/** What /proc says of a process: its scheduler state letter and its start time since boot. */
export interface ProcStat {
  /** The state letter of field 3 (`R`, `S`, `D`, `Z` zombie, `X` dead, …). */
  readonly state: string;
  /** Field 22, the start time in clock ticks after boot: with the pid, it names one process. */
  readonly startTicks: string;
}

/**
 * Parses the text of `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may hold
 * spaces and parentheses itself, so the fields are read after its last `)`. Returns undefined for
 * text that is not in that shape.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const end = text.lastIndexOf(')');
  if (end < 0) {
    return undefined;
  }
  const fields = text.slice(end + 1).trim().split(/\s+/);
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const state = fields[0];
  const startTicks = fields[19];
  if (state === undefined || !/^[A-Za-z]$/.test(state) || startTicks === undefined || !/^\d+$/.test(startTicks)) {
    return undefined;
  }
  return { state, startTicks };
}

/** The start time of the running process itself, or undefined where there is no /proc. */
export async function ownStartTicks(): Promise<string | undefined> {
  const stat = await readProcStat(process.pid);
  return stat === undefined || stat === 'no-proc' ? undefined : stat.startTicks;
}

/**
 * Whether `pid` is a live process that can still hold a lock: not gone, not a zombie (killed and
 * waiting for its parent to reap it: its files are already closed), and, when `startTicks` is
 * known, the same process that wrote it rather than a later one that got its pid. Where /proc is
 * missing (not Linux), falls back to whether a signal can be sent to the pid.
 */
export async function holdsLockAlive(pid: number, startTicks: string | undefined): Promise<boolean> {
  const stat = await readProcStat(pid);
  if (stat === 'no-proc') {
    return signalable(pid);
  }
  if (stat === undefined) {
    return false;
  }
  if (stat.state === 'Z' || stat.state === 'X') {
    return false;
  }
  return startTicks === undefined || stat.startTicks === startTicks;
}

async function readProcStat(pid: number): Promise<ProcStat | undefined | 'no-proc'> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch (error: unknown) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ESRCH') {
      // No /proc entry: either the process is gone, or this system has no /proc at all.
      return (await hasProcFs()) ? undefined : 'no-proc';
    }
    return 'no-proc';
  }
}

async function hasProcFs(): Promise<boolean> {
  try {
    await readFile('/proc/self/stat', 'utf8');
    return true;
  } catch {
    return false; // no /proc: liveness falls back to signals
  }
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    // EPERM: it exists but belongs to another user; ESRCH: no such process.
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}
