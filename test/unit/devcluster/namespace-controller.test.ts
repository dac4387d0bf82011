import { describe, expect, it } from 'vitest';
import { finalizersForPropagation } from '../../../src/apiserver/deletion-propagation.js';
import { namespaceConditions } from '../../../src/devcluster/namespace-controller.js';

const NOW = '2026-01-02T03:04:05Z';
const none = { byResource: new Map<string, number>(), byFinalizer: new Map<string, number>() };

describe('namespaceConditions', () => {
  it('reports the five conditions settled when nothing remains', () => {
    const conditions = namespaceConditions(none, [], NOW);
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers'],
    ]);
    expect(conditions.every((c) => c.lastTransitionTime === NOW)).toBe(true);
  });

  it('names what remains, sorted, and keeps the transition time of conditions whose status did not change', () => {
    const remaining = { byResource: new Map([['services.', 1], ['configmaps.', 2]]), byFinalizer: new Map([['b.io/x', 1], ['a.io/y', 2]]) };
    const earlier = namespaceConditions(none, [], '2026-01-01T00:00:00Z');
    const conditions = namespaceConditions(remaining, earlier, NOW);
    expect(conditions[3]).toEqual({ type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: NOW, reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 2 resource instances, services. has 1 resource instances' });
    expect(conditions[4]?.message).toBe('Some content in the namespace has finalizers remaining: a.io/y in 2 resource instances, b.io/x in 1 resource instances');
    expect(conditions[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });
});

describe('finalizersForPropagation', () => {
  it('adds the finalizer of Orphan and Foreground, drops the other one, and keeps the rest', () => {
    const finalizers = Object.freeze(['example.com/a', 'orphan']);
    expect(finalizersForPropagation(finalizers, 'Foreground')).toEqual(['example.com/a', 'foregroundDeletion']);
    expect(finalizersForPropagation(finalizers, 'Orphan')).toEqual(['example.com/a', 'orphan']);
    expect(finalizersForPropagation(finalizers, 'Background')).toEqual(['example.com/a']);
    expect(finalizersForPropagation(finalizers, undefined)).toEqual(['example.com/a', 'orphan']);
  });
});
