import { describe, expect, it } from 'vitest';
import { parseListText } from '../../../src/kube/list-text.js';
import { withoutManagedFieldsString } from '../../../src/kube/managed-fields-text.js';
import { trickyJson } from '../../support/tricky-json.js';

const parse = (text: string, decodeItem?: (item: Buffer) => string): unknown => parseListText(Buffer.from(text), decodeItem);

/** What the whole text gives, or the error class it throws. */
function whole(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return (error as Error).constructor;
  }
}

function split(text: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    return (error as Error).constructor;
  }
}

describe('parseListText', () => {
  it('parses a list answer as JSON.parse does, key order included', () => {
    const list = { kind: 'EndpointsList', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: 'x' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' }, subsets: [] }], extra: [1] };
    for (const text of [JSON.stringify(list), JSON.stringify(list, null, 2), JSON.stringify(list, null, '\t')]) {
      const parsed = parse(text);
      expect(parsed).toEqual(list);
      expect(Object.keys(parsed as object)).toEqual(Object.keys(list));
    }
  });

  it('decodes each item with the decoder given, e.g. one that cuts members', () => {
    const list = { kind: 'List', items: [{ metadata: { name: 'a', managedFields: [{ manager: 'x' }] } }, { metadata: { managedFields: [], name: 'b' } }] };
    expect(parse(JSON.stringify(list), withoutManagedFieldsString)).toEqual({ kind: 'List', items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] });
  });

  it('parses whole, with the decoder, what it does not read as a list', () => {
    const edited: string[] = [];
    const edit = (body: Buffer): string => {
      edited.push(body.toString('utf8'));
      return body.toString('utf8');
    };
    for (const text of ['{"items":null}', '{"kind":"List"}', '[1,2]', '{"items":[1],"items":[2]}', '{"\\u0069tems":[1],"items":[2]}', '{}', '"items"']) {
      edited.length = 0;
      expect(parse(text, edit)).toEqual(JSON.parse(text));
      expect(edited).toEqual([text]);
    }
  });

  it('rejects what JSON.parse rejects', () => {
    const bad = ['', '{', '{"items":[', '{"items":[1,]}', '{"items":[1 2]}', '{"items":[{]}', '{"a":1,}', '{"items":[]}x', '{"items":[tru e]}', '{"a" 1,"items":[]}', '{"items":[:]}', '{"items":[1],"a":}'];
    for (const text of bad) expect(() => parse(text), text).toThrow(SyntaxError);
  });

  it('matches JSON.parse for generated list texts, valid or not', () => {
    const strings = ['items', '"items":[', '\\', '\\"', '[', ']', '{', '}', ',', 'é', ' ', '', ':'];
    const { draw: random, value } = trickyJson(4242, { strings, deepAt: 3 });
    for (let i = 0; i < 500; i += 1) {
      const list: Record<string, unknown> = { kind: 'List', metadata: value(1) };
      if (random(5) > 0) list['items'] = Array.from({ length: random(6) }, () => value(1));
      if (random(3) === 0) list[strings[random(strings.length)] ?? 'x'] = value(1);
      let text = JSON.stringify(list, null, random(2) === 0 ? undefined : 1);
      if (random(4) === 0) {
        // A byte removed or doubled somewhere: mostly invalid texts.
        const at = random(text.length);
        text = random(2) === 0 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at + 1) + text.slice(at);
      }
      expect(split(text), text).toEqual(whole(text));
    }
  });
});
