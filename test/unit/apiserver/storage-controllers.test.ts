import { describe, expect, it } from 'vitest';
import type { ObjectChange, ObjectController } from '../../../src/apiserver/object-controllers.js';
import { StorageControllers } from '../../../src/apiserver/storage-controllers.js';
import type { StoredObject } from '../../../src/apiserver/storage.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { MapStorage } from '../../support/map-storage.js';
import { waitFor } from '../../support/wait-for.js';

const RESOURCE = 'example.vcsync.io/v1/gadgets';

function gadget(name: string, uid: string, color = 'red'): StoredObject {
  return { apiVersion: 'example.vcsync.io/v1', kind: 'Gadget', metadata: { name, uid }, spec: { color } };
}

/** Records every change it observes as `TYPE name uid`, and reconciles each key once. */
class Recorder implements ObjectController {
  readonly name = 'recorder';
  readonly seen: string[] = [];
  readonly reconciled: string[] = [];
  observe(change: ObjectChange): readonly string[] {
    this.seen.push(`${change.type} ${change.object.metadata.name} ${String(change.object.metadata.uid)}`);
    return [change.object.metadata.name];
  }
  async reconcile(key: string): Promise<void> {
    this.reconciled.push(key);
  }
}

describe('StorageControllers: controllers over any Storage (list, then watch; list again when the watch ends)', () => {
  it('feeds the listed objects as ADDED, then live changes; after a watch ends it lists again and reports what vanished or was replaced meanwhile', async () => {
    const storage = new MapStorage();
    await storage.create(RESOURCE, gadget('a', 'uid-a'));
    await storage.create(RESOURCE, gadget('b', 'uid-b'));
    const recorder = new Recorder();
    const controllers = new StorageControllers({ storage, resources: [RESOURCE], controllers: [recorder], relistDelayMs: 0, logger: silentLogger() });
    const stop = new AbortController();
    const running = controllers.run(stop.signal);
    try {
      await waitFor('the first list', () => controllers.hasSynced() && storage.registered.open === 1);
      expect(recorder.seen).toEqual(['ADDED a uid-a', 'ADDED b uid-b']);
      await storage.update(RESOURCE, gadget('a', 'uid-a', 'blue'));
      expect(recorder.seen.at(-1)).toBe('MODIFIED a uid-a');
      // Disconnected: none of these reaches a watch; the next list must account for them.
      storage.endWatches('failed');
      await storage.delete({ resource: RESOURCE, namespace: '', name: 'b' });
      await storage.delete({ resource: RESOURCE, namespace: '', name: 'a' });
      await storage.create(RESOURCE, gadget('a', 'uid-a2'));
      await storage.create(RESOURCE, gadget('c', 'uid-c'));
      await waitFor('the watch to be open again', () => storage.registered.open === 1);
      expect(recorder.seen.slice(3)).toEqual(['DELETED b uid-b', 'DELETED a uid-a', 'ADDED a uid-a2', 'ADDED c uid-c']);
      await controllers.idle();
      expect(new Set(recorder.reconciled)).toEqual(new Set(['a', 'b', 'c']));
    } finally {
      stop.abort();
      await running;
    }
    expect(storage.registered.open).toBe(0);
  });

  it('lists again at once when the watch cannot start from the list (Expired), missing nothing', async () => {
    const storage = new MapStorage();
    await storage.create(RESOURCE, gadget('a', 'uid-a'));
    let release: () => void = () => undefined;
    storage.holdWatches = new Promise<void>((resolve) => {
      release = resolve;
    });
    const recorder = new Recorder();
    const controllers = new StorageControllers({ storage, resources: [RESOURCE], controllers: [recorder], relistDelayMs: 60_000, logger: silentLogger() });
    const stop = new AbortController();
    const running = controllers.run(stop.signal);
    try {
      await waitFor('the watch to be asked for', () => storage.watchCalls === 1);
      await storage.create(RESOURCE, gadget('b', 'uid-b')); // between the list and the watch: Expired
      storage.holdWatches = undefined;
      release();
      await waitFor('the watch to be open', () => storage.registered.open === 1);
      expect(recorder.seen).toEqual(['ADDED a uid-a', 'MODIFIED a uid-a', 'ADDED b uid-b']);
    } finally {
      stop.abort();
      await running;
    }
  });
});
