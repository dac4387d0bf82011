import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/index.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { buildSyncState } from '../../../src/syncer/sync-state.js';
import type { PatchConfig } from '../../../src/config/schema.js';

describe('PlanPatcher.readsHost: whether host copies must be cached (or read) whole', () => {
  const sandbox = new PatchSandbox({});
  afterAll(() => sandbox.dispose());
  const CASES: readonly [name: string, patches: unknown[], readsHost: boolean][] = [
    ['no patches', [], false],
    ['a forward expression on the virtual object only', [{ path: 'metadata.annotations.a', expression: 'value + context.virtualObject.metadata.name' }], false],
    ['a forward expression reading context.path', [{ path: 'metadata.annotations.a', expression: 'context.path' }], false],
    ['a forward expression reading context.hostObject', [{ path: 'metadata.annotations.a', expression: 'context.hostObject?.metadata?.name ?? value' }], true],
    ['a forward expression using context whole (the analysis cannot follow it)', [{ path: 'metadata.annotations.a', expression: 'JSON.stringify(context)' }], true],
    ['a reverse expression (its source is the host object)', [{ path: 'metadata.annotations.a', expression: 'value', reverseExpression: 'value' }], true],
    ['a label selector patch (it reverses)', [{ path: 'metadata.annotations.selector', labels: {} }], true],
  ];

  it.each(CASES)('%s → %s', (_name, patches, readsHost) => {
    const config = defaultConfig();
    const built = buildSyncState({ config, vclusterName: 'vc', hostNamespace: 'host-ns', sandbox }, { enabled: true, patches: patches as PatchConfig[] }, 'sync.toHost.endpoints.patches');
    if (!built.ok) throw new Error(JSON.stringify(built.errors));
    expect(built.state.patcher.readsHost).toBe(readsHost);
  });
});
