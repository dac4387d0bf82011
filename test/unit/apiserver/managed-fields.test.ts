import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { fieldManagerOf, managerFromUserAgent } from '../../../src/apiserver/field-manager.js';
import { decodeFieldsV1, displayPath, encodeFieldsV1, orderedPaths, pathOf } from '../../../src/apiserver/field-set.js';
import { compareObjects, decodeManagedFields, fieldSchemaOf, fieldSetOf, updateManagedFields, type ManagedFieldsEntry } from '../../../src/apiserver/managed-fields.js';
import { CONFIG_MAP, SERVICE } from './ownership-kinds.js';

const NOW = '2026-01-01T00:00:00Z';
const LATER = '2026-01-01T00:01:00Z';

const path = (...elements: string[]): string => pathOf(elements);

describe('field sets', () => {
  it('hold leaves, list items and map entries, never metadata identity, apiVersion, kind or a subresource status', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'n', uid: 'u', labels: { app: 'x' }, finalizers: ['a/b'] },
      spec: { ports: [{ name: 'http', port: 80 }], selector: { app: 'x' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    };
    expect(encodeFieldsV1(fieldSetOf(fieldSchemaOf(SERVICE), object))).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"a/b"': {} }, 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:selector': {}, 'f:type': {} },
    });
  });

  it('encode to FieldsV1 and decode back to the same set', () => {
    const fields = { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } };
    const set = decodeFieldsV1(fields);
    expect([...set].sort()).toEqual([path('f:data'), path('f:data', 'f:a'), path('f:metadata', 'f:labels', 'f:x')].sort());
    expect(encodeFieldsV1(set)).toEqual(fields);
    expect(() => decodeFieldsV1({ 'x:bad': {} })).toThrow(TypeError);
  });

  it('print paths as Kubernetes does in conflicts, members before children', () => {
    expect(displayPath(path('f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'))).toBe('.spec.ports[port=80,protocol="TCP"].name');
    expect(displayPath(path('f:metadata', 'f:finalizers', 'v:"a/b"'))).toBe('.metadata.finalizers[="a/b"]');
    expect(orderedPaths(new Set([path('f:data', 'f:b'), path('f:a', 'f:x'), path('f:data', 'f:a'), path('f:z')]))).toEqual([path('f:z'), path('f:a', 'f:x'), path('f:data', 'f:a'), path('f:data', 'f:b')]);
  });

  it('compare: what a write added, changed and removed, containers included', () => {
    const before = { data: { a: '1', b: '2' } };
    const after = { data: { a: '5', c: '3' }, metadata: { labels: { x: 'y' } } };
    const compared = compareObjects(fieldSchemaOf(CONFIG_MAP), before, after);
    expect([...compared.added].sort()).toEqual([path('f:data', 'f:c'), path('f:metadata', 'f:labels'), path('f:metadata', 'f:labels', 'f:x')].sort());
    expect([...compared.modified]).toEqual([path('f:data', 'f:a')]);
    expect([...compared.removed]).toEqual([path('f:data', 'f:b')]);
  });
});

describe('the manager of a write', () => {
  it('comes from fieldManager, else the User-Agent before its first slash, else "unknown"', () => {
    const request = { kind: 'CreateOptions' as const, apply: false, force: false };
    expect(fieldManagerOf({ ...request, fieldManager: 'mine', userAgent: 'kubectl/v1.36' })).toBe('mine');
    expect(fieldManagerOf({ ...request, fieldManager: undefined, userAgent: 'kubectl/v1.36 (linux/amd64)' })).toBe('kubectl');
    expect(managerFromUserAgent(undefined)).toBe('unknown');
    expect(managerFromUserAgent('')).toBe('unknown');
  });

  it('is required for apply, force only with apply, and at most 128 bytes: else 422 about the options', () => {
    const failure = (request: Parameters<typeof fieldManagerOf>[0]): unknown => {
      try {
        fieldManagerOf(request);
      } catch (error: unknown) {
        return error instanceof ApiError ? { code: error.code, details: error.details } : error;
      }
      return undefined;
    };
    expect(failure({ kind: 'PatchOptions', fieldManager: undefined, userAgent: 'x', apply: true, force: false })).toEqual({
      code: 422,
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] },
    });
    expect(failure({ kind: 'PatchOptions', fieldManager: 'm', userAgent: 'x', apply: false, force: true })).toMatchObject({ code: 422, details: { causes: [{ reason: 'FieldValueForbidden', field: 'force' }] } });
    expect(failure({ kind: 'CreateOptions', fieldManager: 'x'.repeat(129), userAgent: 'x', apply: false, force: false })).toMatchObject({ code: 422, details: { kind: 'CreateOptions', causes: [{ reason: 'FieldValueTooLong' }] } });
  });
});

function entry(manager: string, fieldsV1: Record<string, unknown>, operation: 'Apply' | 'Update' = 'Update'): ManagedFieldsEntry {
  return { manager, operation, apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1 };
}

describe('managedFields of an Update', () => {
  const schema = fieldSchemaOf(CONFIG_MAP);
  const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', managedFields: [entry('creator', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })] }, data: { a: '1', b: '2' } };

  it('record a create: the map itself and its entries', () => {
    const next = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' }, data: { a: '1' } };
    expect(updateManagedFields({ schema, live: undefined, next, requested: undefined, manager: 'conf-test', apiVersion: 'v1', now: NOW })).toEqual([entry('conf-test', { 'f:data': { '.': {}, 'f:a': {} } })]);
  });

  it('move changed fields to the writer, drop removed ones from everyone, keep the rest', () => {
    const next = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' }, data: { a: '5', c: '3' } };
    expect(updateManagedFields({ schema, live: created, next, requested: undefined, manager: 'kubectl-edit', apiVersion: 'v1', now: LATER })).toEqual([
      entry('creator', { 'f:data': {} }),
      { ...entry('kubectl-edit', { 'f:data': { 'f:a': {}, 'f:c': {} } }), time: LATER },
    ]);
  });

  it('leave entries and times alone when the write changes nothing', () => {
    const next = { ...created, metadata: { name: 'm' } };
    expect(updateManagedFields({ schema, live: created, next, requested: undefined, manager: 'other', apiVersion: 'v1', now: LATER })).toEqual(created.metadata.managedFields);
  });

  it('are reset by [] or [{}], replaced by valid ones the client sets, kept when the client sets invalid ones', () => {
    const next = { ...created, metadata: { name: 'm' } };
    const run = (requested: unknown): unknown => updateManagedFields({ schema, live: created, next, requested, manager: 'x', apiVersion: 'v1', now: LATER });
    expect(run([])).toBeUndefined();
    expect(run([{}])).toBeUndefined();
    expect(run([entry('mine', { 'f:data': {} })])).toEqual([entry('mine', { 'f:data': {} })]);
    expect(run([{ ...entry('mine', {}), operation: 'Bad' }])).toEqual(created.metadata.managedFields);
  });

  it('of the status subresource track only status, under an entry of their own', () => {
    const live = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'ClusterIP' }, status: {} };
    const next = { ...live, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    const entries = updateManagedFields({ schema: fieldSchemaOf(SERVICE), live, next, requested: undefined, manager: 'lb', apiVersion: 'v1', subresource: 'status', now: NOW });
    expect(entries).toEqual([{ ...entry('lb', { 'f:status': { 'f:loadBalancer': { '.': {}, 'f:ingress': {} } } }), subresource: 'status' }]);
    expect(decodeManagedFields(entries)?.size).toBe(1);
  });
});

describe('more than 10 Update managers', () => {
  it('merge the oldest into ancient-changes, which takes the latest merged time', () => {
    const schema = fieldSchemaOf(CONFIG_MAP);
    const time = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`;
    const managedFields = Array.from({ length: 10 }, (_, index) => ({ ...entry(`m${index}`, { 'f:data': { [`f:k${index}`]: {} } }), time: time(index) }));
    const data = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`k${index}`, 'v']));
    const live = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', managedFields }, data };
    const next = { ...live, metadata: { name: 'm' }, data: { ...data, k10: 'v' } };
    const entries = updateManagedFields({ schema, live, next, requested: undefined, manager: 'm10', apiVersion: 'v1', now: time(10) });
    expect(entries?.map((item) => item.manager)).toEqual(['ancient-changes', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
    expect(entries?.[0]).toEqual({ ...entry('ancient-changes', { 'f:data': { 'f:k0': {}, 'f:k1': {} } }), time: time(1) });
  });
});
