import { appendFile, mkdtemp, mkdir, open, rename, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigErrorCode } from '../../../src/config/config-error.js';
import { hashConfigText } from '../../../src/config/config-source.js';
import type { ConfigResult } from '../../../src/config/parse-config.js';
import { ConfigFileWatcher, watchConfigFile } from '../../../src/config/watch-config-file.js';
import { waitFor } from '../../support/wait-for.js';
import { sectionConfig } from '../../../src/config/config-section.js';
import { endpointsConfigSection } from '../../../src/syncer/endpoints/config-section.js';
import { checkConfigText } from '../../../src/config/check-config.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const V1 = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n';
const V2 = 'sync:\n  toHost:\n    endpoints:\n      enabled: false\n';
const BAD = 'sync:\n  toHost:\n    endpoints:\n      enabled: maybe\n';

/**
 * Replaces the file's content in one step (a complete temporary file renamed over it), so the
 * watcher can only ever read the old or the new content. A plain writeFile truncates first, and a
 * watcher that reads between the truncation and the write (a loaded machine) sees an empty file.
 */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/**
 * Rewrites the file in place (same inode) in one write(2) and no truncation: only for `text` as
 * long as the content it replaces, so no moment shows an empty, shortened or mixed file.
 */
async function overwriteInPlace(path: string, text: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.write(text, 0);
    await handle.truncate(Buffer.byteLength(text));
  } finally {
    await handle.close();
  }
}

/** A running watcher with everything it reported and logged. */
interface Harness {
  readonly results: ConfigResult[];
  readonly logs: string[];
  /** Count of "unchanged" checks so far. */
  unchanged(): number;
  stop(): Promise<void>;
}

let dir: string;
const running: Harness[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vcsync-config-watch-'));
});

afterEach(async () => {
  for (const harness of running.splice(0)) await harness.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts a watcher on `path` whose applied content is `applied`; resolves once its first check ran. */
async function start(
  path: string,
  applied: string,
  onChange?: (result: ConfigResult) => void,
  parse?: (text: string, path: string) => Promise<ConfigResult>,
): Promise<Harness> {
  const results: ConfigResult[] = [];
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  const controller = new AbortController();
  const watcher = new ConfigFileWatcher({
    path,
    debounceMs: 20,
    initialHash: hashConfigText(applied),
    logger: pino({ level: 'debug' }, stream),
    parse: parse ?? checkWithRegistry,
    onChange: (result) => {
      results.push(result);
      onChange?.(result);
    },
  });
  const done = watcher.run(controller.signal);
  const harness: Harness = {
    results,
    logs,
    unchanged: () => logs.filter((line) => line.includes('Config file unchanged')).length,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
  running.push(harness);
  // With initialHash the watcher checks once at start: wait for that check, so writes that follow
  // are changes it must see.
  await waitFor('the first check', () => harness.unchanged() > 0 || results.length > 0);
  return harness;
}

/** The check a start runs, YAML to defaults, with the registry's sections (no other validators). */
function checkWithRegistry(text: string, path: string): Promise<ConfigResult> {
  return checkConfigText(text, path, registryConfigSchema());
}

function enabledOf(result: ConfigResult | undefined): boolean | undefined {
  return result?.ok === true ? sectionConfig(result.config, endpointsConfigSection).enabled : undefined;
}

describe('ConfigFileWatcher', () => {
  it('reports an in-place write', async () => {
    const path = join(dir, 'vcluster.yaml');
    // V1 with a trailing space (still `true`): as long as V2, so the file's size never changes.
    const v1 = V1.replace('true\n', 'true \n');
    expect(v1.length).toBe(V2.length);
    await writeFile(path, v1);
    const watcher = await start(path, v1);
    expect(watcher.results).toHaveLength(0);
    await overwriteInPlace(path, V2);
    await waitFor('the change', () => watcher.results.length === 1);
    expect(enabledOf(watcher.results[0])).toBe(false);
  });

  it('reports nothing for a write that leaves the content unchanged', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const watcher = await start(path, V1);
    const before = watcher.unchanged();
    await overwriteInPlace(path, V1);
    await waitFor('the re-read after the identical write', () => watcher.unchanged() > before);
    expect(watcher.results).toHaveLength(0);
  });

  it('reports an editor-style save (write a temporary file, rename it over the original)', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const watcher = await start(path, V1);
    await writeFile(join(dir, '.vcluster.yaml.swp'), V2);
    await rename(join(dir, '.vcluster.yaml.swp'), path);
    await waitFor('the change', () => watcher.results.length === 1);
    expect(enabledOf(watcher.results[0])).toBe(false);
    // The watch survives the rename: a second save is seen too.
    await writeFile(join(dir, '.tmp'), V1);
    await rename(join(dir, '.tmp'), path);
    await waitFor('the second change', () => watcher.results.length === 2);
    expect(enabledOf(watcher.results[1])).toBe(true);
  });

  it('reports a Kubernetes ConfigMap volume update (..data symlink swap)', async () => {
    await mkdir(join(dir, '..2024_01'));
    await writeFile(join(dir, '..2024_01', 'vcluster.yaml'), V1);
    await symlink('..2024_01', join(dir, '..data'));
    await symlink(join('..data', 'vcluster.yaml'), join(dir, 'vcluster.yaml'));
    const path = join(dir, 'vcluster.yaml');
    const watcher = await start(path, V1);

    await mkdir(join(dir, '..2024_02'));
    await writeFile(join(dir, '..2024_02', 'vcluster.yaml'), V2);
    await symlink('..2024_02', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await rm(join(dir, '..2024_01'), { recursive: true });

    await waitFor('the swap', () => watcher.results.length === 1);
    expect(enabledOf(watcher.results[0])).toBe(false);
  });

  it('reports an invalid change as errors, then the fix', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const watcher = await start(path, V1);
    await replaceFile(path, BAD);
    await waitFor('the invalid change', () => watcher.results.length === 1);
    const invalid = watcher.results[0];
    expect(invalid?.ok).toBe(false);
    if (invalid?.ok === false) {
      expect(invalid.errors[0]).toMatchObject({ code: ConfigErrorCode.INVALID_TYPE, file: path, line: 4 });
    }
    await replaceFile(path, V2);
    await waitFor('the fix', () => watcher.results.length === 2);
    expect(enabledOf(watcher.results[1])).toBe(false);
  });

  it('refuses a file a non-atomic save has emptied (truncated, not yet written), then applies the completed write', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const watcher = await start(path, V1);
    // The save's two steps, with the watcher's verdict awaited between them: the moment a loaded
    // machine can expose by chance, made certain.
    await truncate(path, 0);
    await waitFor('the verdict on the empty file', () => watcher.results.length === 1);
    const empty = watcher.results[0];
    expect(empty?.ok, 'an empty file on reload is refused, not read as all defaults').toBe(false);
    if (empty?.ok === false) {
      expect(empty.errors).toEqual([expect.objectContaining({ code: ConfigErrorCode.EMPTY_ON_RELOAD, file: path, line: 1, column: 1 })]);
      expect(empty.errors[0]?.message).toMatch(/last valid configuration stays in force.*temporary file renamed over.*`\{\}`/);
    }
    await appendFile(path, V2);
    await waitFor('the completed write', () => watcher.results.length === 2);
    expect(enabledOf(watcher.results[1])).toBe(false);
    // White space only is empty too; `{}` is the way to ask for all defaults.
    await replaceFile(path, '\n  \n');
    await waitFor('the verdict on white space', () => watcher.results.length === 3);
    expect(watcher.results[2]?.ok === false && watcher.results[2].errors[0]?.code).toBe(ConfigErrorCode.EMPTY_ON_RELOAD);
    await replaceFile(path, '{}\n');
    await waitFor('the defaults', () => watcher.results.length === 4);
    expect(enabledOf(watcher.results[3])).toBe(true);
  });

  it('reports a deleted file as a read error and its return as a change', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const watcher = await start(path, V1);
    await unlink(path);
    await waitFor('the deletion', () => watcher.results.length === 1);
    const missing = watcher.results[0];
    expect(missing?.ok === false && missing.errors[0]?.code).toBe(ConfigErrorCode.READ_FAILED);
    await replaceFile(path, V1);
    await waitFor('the file coming back', () => watcher.results.length === 2);
    expect(enabledOf(watcher.results[1])).toBe(true);
  });

  it('reports at start when the file differs from the applied content', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V2);
    const watcher = await start(path, V1);
    await waitFor('the initial difference', () => watcher.results.length === 1);
    expect(enabledOf(watcher.results[0])).toBe(false);
  });

  it('hands the new text to the injected check, and leaves the verdict to the handler', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const seen: string[] = [];
    const rejection: ConfigResult = {
      ok: false,
      errors: [{ code: 'PATCH_X', path: 'sync', file: path, line: 1, column: 1, message: 'rejected by a validator' }],
    };
    const watcher = await start(path, V1, undefined, async (text) => {
      seen.push(text);
      return rejection;
    });
    await replaceFile(path, V2);
    await waitFor('the change', () => watcher.results.length === 1);
    expect(seen).toEqual([V2]);
    expect(watcher.results[0]).toBe(rejection);
    // The watcher's own line says the file changed, not whether the change is valid: only the
    // handler knows whether it applies it.
    const changed = watcher.logs.filter((line) => line.includes('Config file changed'));
    expect(changed).toHaveLength(1);
    expect(JSON.parse(changed[0] ?? '{}')).not.toHaveProperty('valid');
  });

  it('keeps watching after a callback throws', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    let calls = 0;
    const watcher = await start(path, V1, () => {
      calls++;
      if (calls === 1) throw new Error('handler bug');
    });
    await replaceFile(path, V2);
    await waitFor('the first change', () => calls === 1);
    await replaceFile(path, V1);
    await waitFor('the second change', () => calls === 2);
    expect(watcher.logs.some((line) => line.includes('Config change handler failed'))).toBe(true);
  });

  it('takes the content at start as applied when no initialHash is given, and stops on abort', async () => {
    const path = join(dir, 'vcluster.yaml');
    await writeFile(path, V1);
    const results: ConfigResult[] = [];
    const controller = new AbortController();
    const done = watchConfigFile({ path, debounceMs: 20, parse: checkWithRegistry, onChange: (r) => results.push(r) }, controller.signal);
    try {
      // Without initialHash there is no readiness signal: keep making real changes (alternating
      // content) until one lands after the watcher's initial read and is reported.
      for (let attempt = 0; results.length === 0; attempt++) {
        if (attempt > 100) throw new Error('no change was ever reported');
        await replaceFile(path, attempt % 2 === 0 ? V2 : V1);
        // A timeout here only means "not yet": the loop writes again.
        await waitFor('a change after start', () => results.length > 0, { timeoutMs: 300 }).catch(() => undefined);
      }
    } finally {
      controller.abort();
      await done;
    }
    await expect(done).resolves.toBeUndefined();
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it('resolves at once for an already-aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new ConfigFileWatcher({ path: join(dir, 'none.yaml'), parse: checkWithRegistry, onChange: () => undefined }).run(controller.signal),
    ).resolves.toBeUndefined();
  });
});
