import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { CompetingWriterDetector, otherManagers, type ContentionVerdict } from '../../../src/syncer/competing-writers.js';

const repair = (overrides: Partial<ContentionVerdict> = {}): ContentionVerdict => ({ action: 'repair', afterMs: 0, contended: false, competingWrites: 0, report: false, ...overrides });
const defer = (afterMs: number, overrides: Partial<ContentionVerdict> = {}): ContentionVerdict => ({ action: 'defer', afterMs, contended: true, competingWrites: 1, report: false, ...overrides });

function detector(overrides: { maxBackoffMs?: number } = {}): { clock: FakeClock; detector: CompetingWriterDetector } {
  const clock = new FakeClock();
  return { clock, detector: new CompetingWriterDetector({ clock, ...overrides }) };
}

describe('CompetingWriterDetector', () => {
  it('repairs occasional drift at once: fewer than 3 foreign changes within 60 s are not a fight', () => {
    const { clock, detector: d } = detector();
    expect(d.observe('default/web', '10')).toEqual(repair());
    clock.advance(30_000);
    expect(d.observe('default/web', '12')).toEqual(repair());
    clock.advance(30_001); // the first change has left the window
    expect(d.observe('default/web', '14')).toEqual(repair());
    expect(d.observe('default/other', '3')).toEqual(repair());
  });

  it('finds the key contended on the third change within the window, reports once, and defers repairs with doubling backoff', () => {
    const { clock, detector: d } = detector();
    d.observe('default/web', '10');
    clock.advance(100);
    d.observe('default/web', '12');
    clock.advance(100);
    expect(d.observe('default/web', '14')).toEqual(defer(1000, { competingWrites: 3, report: true }));
    clock.advance(400);
    expect(d.observe('default/web', '14')).toEqual(defer(600, { competingWrites: 0 }));
    clock.advance(600);
    expect(d.observe('default/web', '14')).toEqual(repair({ contended: true }));
    // The rival answers our repair at once, each time; our repairs come ever later.
    for (const [i, backoffMs] of [2000, 4000, 8000, 16_000].entries()) {
      clock.advance(10);
      expect(d.observe('default/web', `${20 + i}`)).toEqual(defer(backoffMs - 10));
      clock.advance(backoffMs - 10);
      expect(d.observe('default/web', `${20 + i}`)).toEqual(repair({ contended: true }));
    }
  });

  it('reports a contended key again only after a full window, and caps the backoff', () => {
    const { clock, detector: d } = detector({ maxBackoffMs: 4000 });
    const reports: boolean[] = [];
    const delays: number[] = [];
    for (let version = 1; version <= 200; version++) {
      const verdict = d.observe('default/web', String(version));
      reports.push(verdict.report);
      if (verdict.action === 'defer') delays.push(verdict.afterMs);
      clock.advance(1000);
    }
    // Contended from the third change (t = 2 s): reported then, and every 60 s after.
    expect(reports.flatMap((r, i) => (r ? [i] : []))).toEqual([2, 62, 122, 182]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
  });

  it('keeps a key contended while the rival answers every repair, even once the deferral exceeds the window', () => {
    const { clock, detector: d } = detector();
    d.observe('default/web', '1');
    d.observe('default/web', '2');
    let verdict = d.observe('default/web', '3');
    const deferrals: number[] = [];
    for (let version = 4; version <= 12; version++) {
      deferrals.push(verdict.afterMs);
      clock.advance(verdict.afterMs);
      expect(d.observe('default/web', String(version - 1)).action).toBe('repair');
      clock.advance(1); // the rival answers the repair at once
      verdict = d.observe('default/web', String(version));
      expect(verdict).toMatchObject({ action: 'defer', contended: true, competingWrites: 1 });
    }
    expect(deferrals).toEqual([1000, 1999, 3999, 7999, 15_999, 31_999, 63_999, 127_999, 255_999]);
  });

  it('settles once a repair has stood for a window, and then treats new drift as new', () => {
    const { clock, detector: d } = detector();
    for (const version of ['1', '2', '3']) d.observe('default/web', version);
    clock.advance(1000);
    expect(d.observe('default/web', '3').action).toBe('repair');
    clock.advance(30_000);
    d.settled('default/web');
    expect(d.size).toBe(1); // the repair has stood for half a window only
    clock.advance(30_001);
    d.settled('default/web');
    expect(d.size).toBe(0);
    expect(d.observe('default/web', '9')).toEqual(repair());
    d.forget('default/web');
    expect(d.size).toBe(0);
  });
});

describe('otherManagers', () => {
  it('names the other field managers of an object, once each, sorted', () => {
    const managedFields = [
      { manager: 'vcsync', operation: 'Update' },
      { manager: 'vcluster', operation: 'Update' },
      { manager: 'kubectl-edit', operation: 'Update' },
      { manager: 'vcluster', operation: 'Update', subresource: 'status' },
      { operation: 'Update' },
    ];
    expect(otherManagers({ metadata: { name: 'x', managedFields } }, 'vcsync')).toEqual(['kubectl-edit', 'vcluster']);
    expect(otherManagers({ metadata: { name: 'x' } }, 'vcsync')).toEqual([]);
  });
});
