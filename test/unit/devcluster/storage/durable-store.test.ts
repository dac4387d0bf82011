import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/observe/logger.js';
import { DurableLog } from '../../../../src/devcluster/storage/durable-log.js';
import { ObjectTable } from '../../../../src/devcluster/storage/object-table.js';
import { DataDirError, openStore, type StoreOptions } from '../../../../src/devcluster/storage/open-store.js';
import { StoreError, type Store, type StoredObject } from '../../../../src/devcluster/storage/types.js';

const EP = 'core/v1/endpoints';

function endpoints(namespace: string, name: string, ip = '10.0.0.1'): StoredObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace }, subsets: [{ addresses: [{ ip }] }] };
}

describe('durable store', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.close().catch(() => undefined); // tests close some stores themselves
    }
    for (const dir of dirs.splice(0)) {
      await rm(dir, { recursive: true, force: true });
    }
  });
  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-store-'));
    dirs.push(dir);
    return dir;
  }
  async function open_(dataDir: string, options: Omit<StoreOptions, 'dataDir'> = {}): Promise<Store> {
    const store = await openStore({ ...options, dataDir });
    stores.push(store);
    return store;
  }
  async function openError(dataDir: string): Promise<DataDirError> {
    const error: unknown = await openStore({ dataDir }).then(
      async (store) => {
        await store.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDirError);
    return error as DataDirError;
  }

  it('reopens with the same objects, revision and watchable history', async () => {
    const dir = await tempDir();
    const first = await open_(dir);
    await first.create(EP, endpoints('a', 'one')); // 1
    await first.create(EP, endpoints('a', 'two')); // 2
    await first.update(EP, endpoints('a', 'one', '10.9.9.9')); // 3
    await first.delete({ resource: EP, namespace: 'a', name: 'two' }); // 4
    await first.close();

    const second = await open_(dir);
    expect(second.currentRevision()).toBe(4);
    expect(second.list(EP).items).toEqual([
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'one', namespace: 'a', resourceVersion: '3' }, subsets: [{ addresses: [{ ip: '10.9.9.9' }] }] },
    ]);
    expect(Object.isFrozen(second.list(EP).items[0])).toBe(true);
    expect(second.oldestWatchableRevision()).toBe(0);
    const seen: [string, number][] = [];
    second.watch({ resource: EP }, 2, { onEvent: (e) => seen.push([e.type, e.revision]) });
    expect(seen).toEqual([['MODIFIED', 3], ['DELETED', 4]]);
    // The recovered events know what each change replaced: the past can be listed again.
    expect(second.listAt(EP, 2).items.map((item) => [item.metadata.name, item.metadata.resourceVersion])).toEqual([
      ['one', '1'],
      ['two', '2'],
    ]);
    const next = await second.create(EP, endpoints('a', 'three'));
    expect(next.metadata.resourceVersion).toBe('5');
    expect(seen.at(-1)).toEqual(['ADDED', 5]);
  });

  it('resolves a mutation only once durable and shows reads only committed changes', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    const pending = store.create(EP, endpoints('a', 'one'));
    expect(store.get({ resource: EP, namespace: 'a', name: 'one' })).toBeUndefined();
    expect(store.currentRevision()).toBe(0);
    // The pending create already counts for preconditions.
    await expect(store.create(EP, endpoints('a', 'one'))).rejects.toMatchObject({ code: 'AlreadyExists' });
    await pending;
    expect(store.get({ resource: EP, namespace: 'a', name: 'one' })?.metadata.resourceVersion).toBe('1');
    const log = await readFile(join(dir, 'wal.jsonl'), 'utf8');
    expect(log).toContain('"name":"one"');
  });

  it('lets exactly one of two concurrent updates win while both wait for the disk', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    await store.create(EP, endpoints('a', 'one'));
    const results = await Promise.allSettled([
      store.update(EP, endpoints('a', 'one', '1.1.1.1'), { resourceVersion: '1' }),
      store.update(EP, endpoints('a', 'one', '2.2.2.2'), { resourceVersion: '1' }),
      store.delete({ resource: EP, namespace: 'a', name: 'one' }, { resourceVersion: '1' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    for (const result of results.slice(1)) {
      expect(((result as PromiseRejectedResult).reason as StoreError).code).toBe('Conflict');
    }
  });

  it('commits many concurrent writes with all revisions distinct, in order, and durable', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    const seen: number[] = [];
    store.watch({ resource: EP }, 0, { onEvent: (e) => seen.push(e.revision) });
    const created = await Promise.all(Array.from({ length: 300 }, (_, i) => store.create(EP, endpoints('load', `o${i}`))));
    expect(new Set(created.map((o) => o.metadata.resourceVersion)).size).toBe(300);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    await store.close();
    const reopened = await open_(dir);
    expect(reopened.list(EP, 'load').items).toHaveLength(300);
    expect(reopened.currentRevision()).toBe(300);
  });

  it('waits for in-flight writes on close, then rejects further calls', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    const write = store.create(EP, endpoints('a', 'late'));
    await store.close();
    await expect(write).resolves.toMatchObject({ metadata: { resourceVersion: '1' } });
    await expect(store.create(EP, endpoints('a', 'x'))).rejects.toBeInstanceOf(StoreError);
    await expect(store.close()).rejects.toMatchObject({ code: 'Closed' });
    const reopened = await open_(dir);
    expect(reopened.get({ resource: EP, namespace: 'a', name: 'late' })).toBeDefined();
  });

  it('ignores a torn final record and keeps appending after it', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    await store.create(EP, endpoints('a', 'one'));
    await store.create(EP, endpoints('a', 'two'));
    await store.close();
    const logPath = join(dir, 'wal.jsonl');
    const goodBytes = (await stat(logPath)).size;
    await appendFile(logPath, '1234abcd {"rev":3,"op":"create","resource":"core/v1/endp');

    const reopened = await open_(dir);
    expect(reopened.currentRevision()).toBe(2);
    expect(reopened.list(EP).items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
    expect((await stat(logPath)).size).toBe(goodBytes);
    await reopened.create(EP, endpoints('a', 'three'));
    await reopened.close();
    const third = await open_(dir);
    expect(third.list(EP).items.map((o) => o.metadata.name)).toEqual(['one', 'three', 'two']);
    expect(third.currentRevision()).toBe(3);
  });

  it('treats a complete but damaged final record as torn, but damage followed by records as corrupt', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    await store.create(EP, endpoints('a', 'one'));
    await store.create(EP, endpoints('a', 'two'));
    await store.create(EP, endpoints('a', 'three'));
    await store.close();
    const logPath = join(dir, 'wal.jsonl');
    const original = await readFile(logPath);
    const secondLine = original.indexOf(0x0a) + 1;

    // Flip one byte inside the second record's JSON: valid records follow it.
    const damaged = Buffer.from(original);
    damaged[secondLine + 20] = damaged[secondLine + 20] === 0x61 ? 0x62 : 0x61;
    await writeFile(logPath, damaged);
    const error = await openError(dir);
    expect(error.code).toBe('Corrupt');
    expect(error.file).toBe(logPath);
    expect(error.offset).toBe(secondLine);
    expect(error.message).toContain(`${logPath} is corrupt at byte offset ${secondLine}`);
    expect(error.message).toMatch(/backup/);

    // Zeros over the last record (a crash that lost the final page): only the tail is dropped.
    const lastLine = original.lastIndexOf(0x0a, original.length - 2) + 1;
    const zeroed = Buffer.from(original);
    zeroed.fill(0, lastLine);
    await writeFile(logPath, zeroed);
    const reopened = await open_(dir);
    expect(reopened.currentRevision()).toBe(2);
  });

  it('compacts into a snapshot that keeps the data and the highest revision', async () => {
    const dir = await tempDir();
    const store = await open_(dir, { compactAfterBytes: 4_000, watchWindow: 50 });
    for (let i = 0; i < 60; i++) {
      await store.create(EP, endpoints('c', `o${i}`));
    }
    for (let i = 0; i < 60; i += 2) {
      await store.delete({ resource: EP, namespace: 'c', name: `o${i}` });
    }
    await store.create('core/v1/services', endpoints('c', 'svc'));
    await store.delete({ resource: 'core/v1/services', namespace: 'c', name: 'svc' }); // revision 92, no object left
    expect(store.currentRevision()).toBe(92);
    await store.close();
    const snapshot = await stat(join(dir, 'snapshot.jsonl'));
    expect(snapshot.size).toBeGreaterThan(0);
    expect((await stat(join(dir, 'wal.jsonl'))).size).toBeLessThan(4_000 + 400);

    const reopened = await open_(dir, { watchWindow: 50 });
    expect(reopened.currentRevision()).toBe(92);
    expect(reopened.list(EP).items.map((o) => o.metadata.name).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `o${2 * i + 1}`).sort(),
    );
    expect(reopened.list('core/v1/services').items).toEqual([]);
    expect(reopened.oldestWatchableRevision()).toBeLessThanOrEqual(92);
    const next = await reopened.create(EP, endpoints('c', 'after'));
    expect(next.metadata.resourceVersion).toBe('93');
  });

  it('rejects a corrupt snapshot with its file and offset', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'snapshot.jsonl'), 'not a snapshot\n');
    const error = await openError(dir);
    expect(error.code).toBe('Corrupt');
    expect(error.file).toBe(join(dir, 'snapshot.jsonl'));
    expect(error.offset).toBe(0);
  });

  it('locks the directory against a second store and takes over a stale lock', async () => {
    const dir = await tempDir();
    const store = await open_(dir);
    const locked = await openError(dir);
    expect(locked.code).toBe('Locked');
    await store.close();

    // A lock left by a process that has exited.
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(child.stdout);
    expect(deadPid).toBeGreaterThan(0);
    await writeFile(join(dir, 'LOCK'), `${deadPid}\n`);
    const reopened = await open_(dir);
    expect(await readFile(join(dir, 'LOCK'), 'utf8')).toMatch(new RegExp(`^${process.pid}\\nstart \\d+\\n$`));
    await reopened.close();
    await expect(stat(join(dir, 'LOCK'))).rejects.toMatchObject({ code: 'ENOENT' });

    // A lock held by a live process (our parent, which is not us).
    await writeFile(join(dir, 'LOCK'), `${process.ppid}\n`);
    const live = await openError(dir);
    expect(live.code).toBe('Locked');
    expect(live.message).toContain(String(process.ppid));

    // The same live pid with another start time is a later process that reused the pid: stale.
    await writeFile(join(dir, 'LOCK'), `${process.ppid}\nstart 1\n`);
    const afterReuse = await open_(dir);
    await afterReuse.close();
  });
});

describe('durable log group commit', () => {
  it('shares one fsync among records appended while another fsync runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-log-'));
    const handle = await open(join(dir, 'wal.jsonl'), 'a');
    let datasyncs = 0;
    const counting = new Proxy(handle, {
      get(target, property, receiver) {
        if (property === 'datasync') {
          return async () => {
            datasyncs++;
            await target.datasync();
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const log = new DurableLog({
      handle: counting,
      logPath: join(dir, 'wal.jsonl'),
      snapshotPath: join(dir, 'snapshot.jsonl'),
      sizeBytes: 0,
      revision: 0,
      compactAfterBytes: 1 << 30,
      objects: new ObjectTable(),
      logger: silentLogger(),
    });
    try {
      const durable: number[] = [];
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          log.append({ rev: i + 1, op: 'create', resource: EP, object: endpoints('g', `o${i}`) }, () => durable.push(i + 1)),
        ),
      );
      expect(durable).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      // The first record goes alone; the 99 queued behind its fsync share the next one.
      expect(datasyncs).toBe(2);
      expect((await readFile(join(dir, 'wal.jsonl'), 'utf8')).split('\n')).toHaveLength(101);
    } finally {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
