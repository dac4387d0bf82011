import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch, type PatchStrategyTable } from '../../../src/apiserver/strategic-merge-patch.js';

const SERVICE: PatchStrategyTable = { 'spec.ports': { mergeKey: 'port' } };
const SERVICE_ACCOUNT: PatchStrategyTable = { secrets: { mergeKey: 'name' } };

const ports = (object: Record<string, unknown>): unknown => (object['spec'] as { ports: { port: number }[] }).ports.map((port) => port.port);

// Every expectation below is what kube-apiserver v1.36 answered to the same patch.
describe('strategic merge patch: the order of merged lists', () => {
  it.each([
    ['a new port goes before the server-only ones', [80], [443], [443, 80]],
    ['patch items keep the patch order, server-only items follow', [80, 443], [8080, 80], [8080, 80, 443]],
    ['a merged port keeps its place when a server-only one came first', [80, 443], [443], [80, 443]],
  ])('%s', (_, live, patched, expected) => {
    const original = Object.freeze({ spec: Object.freeze({ ports: live.map((port) => ({ port })) }) });
    const result = applyStrategicMergePatch(SERVICE, original, { spec: { ports: patched.map((port) => ({ port })) } });
    expect(ports(result)).toEqual(expected);
  });

  it('orders merge-keyed object lists the same way', () => {
    const result = applyStrategicMergePatch(SERVICE_ACCOUNT, { secrets: [{ name: 'a' }, { name: 'b' }] }, { secrets: [{ name: 'a', namespace: 'x' }, { name: 'c' }] });
    expect(result['secrets']).toEqual([{ name: 'a', namespace: 'x' }, { name: 'c' }, { name: 'b' }]);
  });

  it('orders merged lists of primitives (finalizers) the same way', () => {
    const one = applyStrategicMergePatch({}, { metadata: { finalizers: ['example.com/a'] } }, { metadata: { finalizers: ['example.com/b'] } });
    expect((one['metadata'] as { finalizers: string[] }).finalizers).toEqual(['example.com/b', 'example.com/a']);
    const two = applyStrategicMergePatch({}, { metadata: { finalizers: ['x/a', 'x/c'] } }, { metadata: { finalizers: ['x/b', 'x/a'] } });
    expect((two['metadata'] as { finalizers: string[] }).finalizers).toEqual(['x/b', 'x/a', 'x/c']);
  });

  it('puts the items $setElementOrder names in its order, a server-only one first when it came first', () => {
    const result = applyStrategicMergePatch(SERVICE, { spec: { ports: [{ port: 1 }, { port: 2 }, { port: 3 }] } }, { spec: { '$setElementOrder/ports': [{ port: 3 }, { port: 1 }], ports: [{ port: 3, name: 'c' }] } });
    expect(ports(result)).toEqual([2, 3, 1]);
  });
});

describe('strategic merge patch: lists are merged by identity, not pairwise', () => {
  /** A list of `count` ports whose `port` reads are counted in `reads`. */
  function countedPorts(count: number, reads: { n: number }): unknown[] {
    return Array.from({ length: count }, (_, index) => new Proxy({ port: index, name: `p${index}` }, {
      get(target, key, receiver) {
        if (key === 'port') reads.n += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    }));
  }

  it('reads each item’s merge key a bounded number of times however long the list and the patch (2,000 each were 16 million reads)', () => {
    const reads = { n: 0 };
    const live = { spec: { ports: countedPorts(2000, reads) } };
    const patch = { spec: { ports: Array.from({ length: 2000 }, (_, index) => ({ port: 2000 + index })) } };
    const merged = applyStrategicMergePatch(SERVICE, live, patch);
    expect((merged['spec'] as { ports: unknown[] }).ports).toHaveLength(4000);
    expect(reads.n).toBeLessThan(10 * 2000);
  });

  it('keeps the semantics: a key repeated in the live list, deletes, set lists and $deleteFromPrimitiveList', () => {
    const live = { spec: { ports: [{ port: 1, name: 'a' }, { port: 1, name: 'b' }, { port: 2 }] }, metadata: { finalizers: ['x', 'y'] } };
    const patch = {
      spec: { ports: [{ port: 1, $patch: 'delete' }, { port: 1, name: 'c' }, { port: 3 }] },
      metadata: { finalizers: ['z', 'x'], '$deleteFromPrimitiveList/finalizers': ['y'] },
    };
    const merged = applyStrategicMergePatch(SERVICE, live, patch) as { spec: { ports: unknown[] }; metadata: { finalizers: string[] } };
    // The delete removes the first port 1, the merge then finds the second.
    expect(merged.spec.ports).toEqual([{ port: 1, name: 'c' }, { port: 3 }, { port: 2 }]);
    expect(merged.metadata.finalizers).toEqual(['z', 'x']);
  });
});
