import { describe, expect, it } from 'vitest';
import { controlledElsewhere } from '../../../src/translate/controlled-by.js';
import { deepFrozen } from './deep-frozen.js';

const KEY = 'vcluster.loft.sh/controlled-by';

describe('controlledElsewhere (vcluster excludeVirtual / excludePhysical)', () => {
  // metadata → whether the endpoints syncer leaves the object alone
  const table: { name: string; metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined; alone: boolean }[] = [
    { name: 'no metadata', metadata: undefined, alone: false },
    { name: 'plain labels and annotations', metadata: { labels: { app: 'web' }, annotations: { note: 'x' } }, alone: false },
    { name: 'controlled-by label, a plugin name', metadata: { labels: { [KEY]: 'my-plugin' } }, alone: true },
    { name: 'controlled-by label naming this very syncer', metadata: { labels: { [KEY]: 'endpoints' } }, alone: true },
    { name: 'controlled-by label with an empty value', metadata: { labels: { [KEY]: '' } }, alone: false },
    { name: 'controlled-by annotation naming another syncer', metadata: { annotations: { [KEY]: 'services' } }, alone: true },
    { name: 'controlled-by annotation naming this syncer', metadata: { annotations: { [KEY]: 'endpoints' } }, alone: false },
    { name: 'controlled-by annotation with an empty value', metadata: { annotations: { [KEY]: '' } }, alone: false },
    { name: 'annotation for this syncer but a plugin label', metadata: { labels: { [KEY]: 'p' }, annotations: { [KEY]: 'endpoints' } }, alone: true },
  ];
  for (const row of table) {
    it(`${row.name} → ${row.alone ? 'left alone' : 'synced'}`, () => {
      const reason = controlledElsewhere(deepFrozen(row.metadata), 'endpoints');
      expect(reason !== undefined).toBe(row.alone);
      if (reason !== undefined) expect(reason).toContain(KEY);
    });
  }
});
