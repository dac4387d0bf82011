import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { fieldSchemaOf } from '../../../src/apiserver/managed-fields.js';
import { applyConfiguration, type ApplyRequest } from '../../../src/apiserver/server-side-apply.js';
import { CONFIG_MAP, POD, SERVICE } from './ownership-kinds.js';

const NOW = '2026-01-01T00:00:00Z';
const LATER = '2026-01-01T00:05:00Z';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- assertions read arbitrary JSON

function cm(data: Record<string, string>, name = 'a'): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function apply(live: Json | undefined, config: unknown, manager: string, options: Partial<ApplyRequest> = {}): Json {
  return applyConfiguration({ schema: fieldSchemaOf(CONFIG_MAP), apiVersion: 'v1', kind: 'ConfigMap', live, config, manager, force: false, now: NOW, ...options });
}

function failure(run: () => unknown): { code: number; message: string; details: unknown } | undefined {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof ApiError) return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  return undefined;
}

describe('server-side apply', () => {
  it('creates: the configuration, owned by the manager as an Apply', () => {
    expect(apply(undefined, cm({ a: '1' }), 'one')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', managedFields: [{ manager: 'one', operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }] },
      data: { a: '1' },
    });
  });

  it('answers 409 naming field and manager when another manager owns a field it changes', () => {
    const live = apply(undefined, cm({ a: '1' }), 'one');
    expect(failure(() => apply(live, cm({ a: '2' }), 'two'))).toEqual({
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "one": .data.a',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.a' }] },
    });
  });

  it('names an Update manager with its apiVersion and lists several conflicts by manager', () => {
    const live = { ...cm({ a: '1', b: '2' }), metadata: { name: 'a', managedFields: [{ manager: 'edit', operation: 'Update', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }] } };
    expect(failure(() => apply(live, cm({ a: '9', b: '9' }), 'one'))?.message).toBe('Apply failed with 2 conflicts: conflicts with "edit" using v1:\n- .data.a\n- .data.b');
  });

  it('force takes the field over; the same value is shared without conflict', () => {
    const live = apply(undefined, cm({ a: '1', b: '2' }), 'one');
    const forced = apply(live, cm({ a: '2' }), 'two', { force: true, now: LATER });
    expect(forced['data']).toEqual({ a: '2', b: '2' });
    expect(forced['metadata'].managedFields.map((entry: Json) => [entry['manager'], entry['fieldsV1']])).toEqual([
      ['one', { 'f:data': { 'f:b': {} } }],
      ['two', { 'f:data': { 'f:a': {} } }],
    ]);
    const shared = apply(live, cm({ b: '2' }), 'three');
    expect(shared['metadata'].managedFields.map((entry: Json) => [entry['manager'], entry['fieldsV1'], entry['time']])).toEqual([
      // Nothing changed: the new entry gets no time (and sorts first, as time 0).
      ['three', { 'f:data': { 'f:b': {} } }, undefined],
      ['one', { 'f:data': { 'f:a': {}, 'f:b': {} } }, NOW],
    ]);
  });

  it('removes fields the manager no longer applies, unless another manager owns them', () => {
    let live = apply(undefined, cm({ a: '1', b: '2', c: '3' }), 'one');
    live = apply(live, cm({ c: '3' }), 'two');
    const next = apply(live, cm({ a: '1' }), 'one');
    expect(next['data']).toEqual({ a: '1', c: '3' });
    const none = apply(apply(undefined, cm({ a: '1' }), 'one'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 'one');
    expect(none['data']).toBeUndefined();
    expect(none['metadata'].managedFields).toBeUndefined();
  });

  it('merges Service ports by port and protocol, and a selector as a whole', () => {
    const applySvc = (live: Json | undefined, spec: Json, manager: string): Json =>
      applyConfiguration({ schema: fieldSchemaOf(SERVICE), apiVersion: 'v1', kind: 'Service', live, config: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec }, manager, force: false, now: NOW });
    const live = applySvc(undefined, { ports: [{ name: 'http', port: 80 }], selector: { app: 'x', tier: 'web' } }, 'one');
    const next = applySvc({ ...live, spec: { ...live['spec'], ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }] } }, { ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }] }, 'two');
    expect(next['spec'].ports).toEqual([
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
      { name: 'dns', port: 53, protocol: 'UDP' },
    ]);
    expect(next['metadata'].managedFields[1].fieldsV1).toEqual({
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} }, 'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } },
    });
    const conflict = failure(() => applySvc(next, { selector: { app: 'y' } }, 'three'));
    expect(conflict?.details).toEqual({ causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.spec.selector' }] });
  });

  it('merges containers by name and removes a container its manager dropped', () => {
    const applyPod = (live: Json | undefined, containers: Json[]): Json =>
      applyConfiguration({ schema: fieldSchemaOf(POD), apiVersion: 'v1', kind: 'Pod', live, config: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } }, manager: 'one', force: false, now: NOW });
    const live = applyPod(undefined, [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }]);
    expect(applyPod(live, [{ name: 'b', image: 'z' }])['spec']).toEqual({ containers: [{ name: 'b', image: 'z' }] });
  });

  it('to the status subresource: an entry of its own that owns only status', () => {
    const live = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'ClusterIP' }, status: {} };
    const config = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'NodePort' }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    const applied: Json = applyConfiguration({ schema: fieldSchemaOf(SERVICE), apiVersion: 'v1', kind: 'Service', live, config, manager: 'lb', force: false, now: NOW, subresource: 'status' });
    expect(applied['metadata'].managedFields).toEqual([{ manager: 'lb', operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:loadBalancer': { 'f:ingress': {} } } }, subresource: 'status' }]);
  });

  it('refuses a configuration of another kind or version, or one that sets managedFields', () => {
    expect(failure(() => apply(undefined, { kind: 'ConfigMap', metadata: { name: 'a' } }, 'one'))).toMatchObject({ code: 400, message: 'invalid object type: /, Kind=ConfigMap' });
    expect(failure(() => apply(undefined, { ...cm({}), apiVersion: 'v2' }, 'one'))).toMatchObject({ code: 400, message: 'invalid object type: /v2, Kind=ConfigMap' });
    expect(failure(() => apply(undefined, { ...cm({}), metadata: { name: 'a', managedFields: [] } }, 'one'))).toMatchObject({ code: 400, message: 'metadata.managedFields must be nil' });
  });

  it('does not mutate its inputs', () => {
    const live = Object.freeze(apply(undefined, cm({ a: '1' }), 'one'));
    const config = Object.freeze(cm({ b: '2' }));
    const before = JSON.stringify([live, config]);
    apply(live, config, 'two');
    expect(JSON.stringify([live, config])).toBe(before);
  });
});
