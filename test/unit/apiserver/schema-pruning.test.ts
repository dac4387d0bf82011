import { describe, expect, it } from 'vitest';
import type { SchemaObject } from '../../../src/apiserver/schema-object.js';
import { pruneObject, type KindSchema } from '../../../src/apiserver/schema-pruning.js';

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const described = (name: string): SchemaObject => ({ allOf: [ref(name)], description: 'wrapped as OpenAPI v3 does', default: {} });

const COMPONENTS: Record<string, SchemaObject> = {
  Thing: {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      metadata: described('Meta'),
      spec: described('Spec'),
      items: { type: 'array', items: { type: 'string' } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      raw: { type: 'object' },
    },
  },
  Meta: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
  Spec: {
    type: 'object',
    properties: {
      ports: { type: 'array', items: described('Port') },
      byName: { type: 'object', additionalProperties: described('Port') },
      tree: ref('Tree'),
      flag: { type: 'boolean' },
    },
  },
  Port: { type: 'object', properties: { port: { type: 'integer' }, target: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] } } },
  // Recursive, as some real schemas are: compiling it must end.
  Tree: { type: 'object', properties: { children: { type: 'array', items: ref('Tree') }, leaf: { type: 'string' } } },
};
const THING: KindSchema = { name: 'Thing', components: COMPONENTS };

describe('pruneObject', () => {
  it('drops unknown fields at every depth (structs, list items, map values, recursive types) and names them in document order', () => {
    const object = {
      bogus: 1,
      metadata: { name: 'a', colour: 'red' },
      spec: {
        ports: [{ port: 80, target: 'http', extra: true }, { port: 81 }],
        byName: { web: { port: 80, extra: 1 } },
        tree: { children: [{ leaf: 'x', children: [{ deep: 1 }] }] },
        zzz: {},
      },
      items: ['x'],
    };
    expect(pruneObject(THING, object).unknown).toEqual([
      'bogus',
      'metadata.colour',
      'spec.ports[0].extra',
      'spec.byName.web.extra',
      'spec.tree.children[0].children[0].deep',
      'spec.zzz',
    ]);
    expect(object).toEqual({
      metadata: { name: 'a' },
      spec: { ports: [{ port: 80, target: 'http' }, { port: 81 }], byName: { web: { port: 80 } }, tree: { children: [{ leaf: 'x', children: [{}] }] } },
      items: ['x'],
    });
  });

  it('keeps what the schema leaves open: preserve-unknown-fields, objects without properties, scalars', () => {
    const object = { free: { anything: { goes: [1] } }, raw: { also: true }, spec: { ports: [{ port: 80, target: 8080 }] }, items: ['x'] };
    expect(pruneObject(THING, structuredClone(object)).unknown).toEqual([]);
  });

  it('drops null and empty optional lists and maps, writes an empty required list as null, keeps false and empty objects', () => {
    const object: Record<string, unknown> = { metadata: { name: 'a', labels: {} }, spec: { ports: [], byName: null, flag: false, tree: {} }, items: [] };
    pruneObject(THING, object);
    expect(object).toEqual({ metadata: { name: 'a' }, spec: { flag: false, tree: {} }, items: null });
  });
});

describe('pruneObject below an object that refuses unknown fields', () => {
  const GUARDED: KindSchema = {
    name: 'Guarded',
    components: {
      Guarded: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              note: { type: 'string' },
              scope: { type: 'object', 'x-vcsync-refuse-unknown-fields': true, properties: { rules: { type: 'array', items: { type: 'object', properties: { verbs: { type: 'array', items: { type: 'string' } } } } } } },
            },
          },
        },
      },
    },
  };

  it('reports unknown fields at every depth below it as refused, with the fields their object knows, and keeps them; elsewhere still prunes', () => {
    const object = { spec: { extra: 1, scope: { widen: true, rules: [{ verbs: ['get'], notVerbs: ['delete'] }] } } };
    expect(pruneObject(GUARDED, object)).toEqual({
      unknown: ['spec.extra'],
      refused: [
        { path: 'spec.scope.widen', known: ['rules'] },
        { path: 'spec.scope.rules[0].notVerbs', known: ['verbs'] },
      ],
    });
    expect(object).toEqual({ spec: { scope: { widen: true, rules: [{ verbs: ['get'], notVerbs: ['delete'] }] } } });
  });
});
