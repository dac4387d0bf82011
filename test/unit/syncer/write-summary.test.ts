import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { WriteSummary } from '../../../src/syncer/write-summary.js';
import { captureLogger } from '../../support/log-capture.js';

describe('WriteSummary', () => {
  it('logs the host writes of each interval as one info line of counts, and nothing for an interval without writes', async () => {
    const clock = new FakeClock();
    const log = captureLogger('info');
    const summary = new WriteSummary({ logger: log.logger, clock, intervalMs: 1000 });
    const controller = new AbortController();
    const running = summary.run(controller.signal);

    for (let i = 0; i < 5; i += 1) summary.count({ kind: 'synced', action: 'created' });
    summary.count({ kind: 'synced', action: 'updated' });
    summary.count({ kind: 'synced', action: 'recreated' });
    summary.count({ kind: 'deleted', reason: 'virtual object deleted' });
    // Not host writes: not counted.
    summary.count({ kind: 'synced', action: 'virtual-updated' });
    summary.count({ kind: 'unchanged' });
    summary.count({ kind: 'requeue', afterMs: 100, reason: 'cache lag' });
    expect(log.lines).toEqual([]);

    clock.advance(1000);
    await Promise.resolve();
    expect(log.matching('synced host objects')).toEqual([expect.objectContaining({ created: 5, updated: 1, recreated: 1, deleted: 1, seconds: 1 })]);

    clock.advance(1000); // an interval without writes
    await Promise.resolve();
    summary.count({ kind: 'synced', action: 'created' });
    controller.abort();
    await running;
    summary.flush(); // what the controller does once its workers are done
    expect(log.matching('synced host objects').map((line) => line['created'])).toEqual([5, 1]);
    expect(log.lines).toHaveLength(2);
  });
});
