import { describe, expect, it } from 'vitest';
import { diffValues, normalizeOutcome, normalizeValue } from './normalize.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe('normalizeValue', () => {
  it('replaces uid, resourceVersion, times, cluster IPs and generated suffixes by markers, keeps empty values, drops selfLink', () => {
    const service = deepFreeze({
      kind: 'Service',
      metadata: {
        name: 'web-x7k2p',
        generateName: 'web-',
        uid: '0b7c…',
        resourceVersion: '42',
        creationTimestamp: '2026-11-22T20:00:00Z',
        selfLink: '/api/v1/namespaces/a/services/web',
        managedFields: [{ manager: 'kubectl', time: '2026-11-22T20:00:00.123456Z' }],
        generation: 3,
      },
      spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 80 }] },
    });
    expect(normalizeValue(service)).toEqual({
      kind: 'Service',
      metadata: { name: 'web-<suffix>', generateName: 'web-', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
      spec: { clusterIP: '<ip>', clusterIPs: '<ips>', ports: [{ port: 80 }] },
    });
    expect(normalizeValue({ metadata: { resourceVersion: '' } })).toEqual({ metadata: { resourceVersion: '' } });
    expect(normalizeValue({ clusterIP: 'None' })).toEqual({ clusterIP: 'None' });
  });

  it('keeps generation and managedFields (times replaced) when strict', () => {
    const object = deepFreeze({ metadata: { generation: 2, managedFields: [{ manager: 'm', time: '2026-01-01T00:00:00Z' }] } });
    expect(normalizeValue(object, { strict: true })).toEqual({ metadata: { generation: 2, managedFields: [{ manager: 'm', time: '<time>' }] } });
  });

  it('removes Status messages (kept on request) and the cross-cutting empty details and group', () => {
    const status = deepFreeze({
      kind: 'Status',
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      code: 404,
      details: { name: 'x', group: '', kind: 'configmaps', causes: [{ field: 'data', reason: 'FieldValueInvalid', message: 'bad' }] },
    });
    expect(normalizeValue(status)).toEqual({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      details: { name: 'x', kind: 'configmaps', causes: [{ field: 'data', reason: 'FieldValueInvalid' }] },
    });
    expect(normalizeValue(status, { keepMessage: true, strict: true })).toMatchObject({ message: 'configmaps "x" not found', details: { group: '' } });
    expect(normalizeValue({ kind: 'Status', details: {} })).toEqual({ kind: 'Status' });
    expect(normalizeValue({ kind: 'Status', details: {} }, { strict: true })).toEqual({ kind: 'Status', details: {} });
  });

  it('marks a list continue token and keeps remainingItemCount', () => {
    expect(normalizeValue({ metadata: { continue: 'eyJ2Ijo…', remainingItemCount: 1, resourceVersion: '9' }, items: [] })).toEqual({
      metadata: { continue: '<continue>', remainingItemCount: 1, resourceVersion: '<rv>' },
      items: [],
    });
  });
});

describe('normalizeOutcome', () => {
  it('parses JSON bodies and keeps other text as is', () => {
    expect(normalizeOutcome(200, '{"metadata":{"uid":"u"}}')).toEqual({ status: 200, body: { metadata: { uid: '<uid>' } } });
    expect(normalizeOutcome(404, '404 page not found\n')).toEqual({ status: 404, body: '404 page not found\n' });
  });
});

describe('diffValues', () => {
  it('is empty for equal values whatever the key order', () => {
    expect(diffValues({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual([]);
  });

  it('names each differing path, absent sides and extra items, up to the limit', () => {
    expect(diffValues({ a: 1, b: { c: 'x' }, d: [1] }, { a: 2, b: {}, d: [1, 2] })).toEqual(['a: 1 ≠ 2', 'b.c: "x" ≠ absent', 'd[1]: absent ≠ 2']);
    expect(diffValues({ a: 1, b: 1, c: 1 }, { a: 2, b: 2, c: 2 }, 2)).toHaveLength(2);
    expect(diffValues(200, 404)).toEqual(['(root): 200 ≠ 404']);
  });
});
