import { describe, expect, it } from 'vitest';
import { withoutManagedFieldsString, withoutManagedFieldsText } from '../../../src/kube/managed-fields-text.js';
import { trickyJson } from '../../support/tricky-json.js';

/** `value` parsed, with every member named managedFields whose value is an array deleted, at every depth. */
function expected(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expected);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'managedFields' && Array.isArray(inner)) continue;
    out[key] = expected(inner);
  }
  return out;
}

const cut = (text: string): string => withoutManagedFieldsText(Buffer.from(text)).toString('utf8');

const MANAGED = [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:subsets': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {} }, 'f:a]b}c': {} } }];

describe('withoutManagedFieldsText', () => {
  it('returns the same bytes when there is nothing to cut', () => {
    const body = Buffer.from('{"kind":"List","items":[{"metadata":{"name":"a"}}]}');
    expect(withoutManagedFieldsText(body)).toBe(body);
  });

  it('cuts the member from every item of a list, wherever it stands among the metadata', () => {
    const list = {
      kind: 'EndpointsList',
      metadata: { resourceVersion: '7', continue: 'x' },
      items: [
        { metadata: { managedFields: MANAGED, name: 'first' }, subsets: [] },
        { metadata: { name: 'middle', managedFields: MANAGED, uid: 'u' } },
        { metadata: { name: 'last', managedFields: MANAGED } },
        { metadata: { managedFields: MANAGED } },
        { metadata: { name: 'none' } },
      ],
    };
    for (const text of [JSON.stringify(list), JSON.stringify(list, null, 2), JSON.stringify(list, null, '\t')]) {
      const out = cut(text);
      expect(out).not.toContain('managedFields');
      expect(JSON.parse(out)).toEqual(expected(list));
    }
  });

  it('leaves the name alone inside strings, escaped quotes and backslashes included', () => {
    const object = {
      metadata: {
        name: 'a',
        annotations: { note: '"managedFields":[1,2]', tricky: 'ends with a backslash \\', other: '\\"managedFields\\":[', brackets: '[{' },
        managedFields: [{ manager: 'x\\', fieldsV1: { 'f:"quoted"': {}, '\\': { ']': {} } } }],
      },
      spec: { text: 'managedFields' },
    };
    const out = cut(JSON.stringify(object));
    expect(JSON.parse(out)).toEqual(expected(object));
  });

  it('keeps a member of that name whose value is not an array', () => {
    const object = { metadata: { name: 'a', managedFields: null }, spec: { managedFields: 'x' } };
    expect(JSON.parse(cut(JSON.stringify(object)))).toEqual(object);
  });

  it('cuts repeated members next to each other', () => {
    expect(JSON.parse(cut('{"managedFields":[1],"managedFields":[2]}'))).toEqual({});
    expect(JSON.parse(cut('{"a":1,"managedFields":[1],"managedFields":[2],"b":2}'))).toEqual({ a: 1, b: 2 });
  });

  it('returns a text cut short as it came, for the parser to reject', () => {
    const text = '{"metadata":{"managedFields":[{"manager":"x"';
    expect(cut(text)).toBe(text);
    const unterminated = '{"metadata":{"managedFields":["abc';
    expect(cut(unterminated)).toBe(unterminated);
  });

  it('matches parsing and deleting for generated objects', () => {
    const strings = ['managedFields', '"managedFields":[', '\\', '\\"', '[', ']', '{', '}', ',', 'é', ' ', ''];
    const { draw: random, value } = trickyJson(12345, {
      strings,
      deepAt: 4,
      member: (draw, depth, child) => {
        const key = draw(3) === 0 ? 'managedFields' : (strings[draw(strings.length)] ?? '') + String(draw(10));
        return [key, key === 'managedFields' && draw(4) > 0 ? Array.from({ length: draw(3) }, () => child(depth + 1)) : child(depth + 1)];
      },
    });
    for (let i = 0; i < 500; i += 1) {
      const object = value(0);
      const text = JSON.stringify(object, null, random(2) === 0 ? undefined : 1);
      expect(JSON.parse(cut(text))).toEqual(expected(object));
      expect(withoutManagedFieldsString(Buffer.from(text))).toBe(cut(text));
    }
  });
});
