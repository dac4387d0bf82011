import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parseAllDocuments, type Node } from 'yaml';
import { readJsonInput } from '../../../src/cli/json-input.js';

/** What the YAML reader gives the same text: its value, the top-level value's start and the `items` elements' starts. */
function asYaml(text: string): { value: unknown; start: number | undefined; itemStarts: number[] | undefined } {
  const documents = parseAllDocuments(text);
  const document = Array.isArray(documents) ? documents[0] : documents;
  if (document === undefined || document.errors.length > 0) throw new Error('not valid YAML');
  const contents = document.contents as Node | null;
  const items = isMap(contents) ? contents.get('items', true) : undefined;
  return {
    value: document.toJS(),
    start: contents?.range?.[0],
    itemStarts: isSeq(items) ? items.items.map((item) => (item as Node).range?.[0] ?? -1) : undefined,
  };
}

const list = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { kind: 'Service', metadata: { name: 'a "quoted" \\ name', namespace: 'ns' }, spec: { ports: [{ port: 80 }] } },
    { kind: 'Endpoints', metadata: { name: 'b', annotations: { 'x\\"y': '[{,:}]', 'new\nline': '' } }, subsets: [] },
    42,
    null,
    true,
    'text',
    [1, [2, { items: [3] }]],
    {},
  ],
};

describe('readJsonInput', () => {
  it.each([
    ['a compact List', JSON.stringify(list)],
    ['an indented List', JSON.stringify(list, null, 2)],
    // No string of the list holds '": ' or a raw line break: only the structure is respaced.
    ['a List with tabs, CRLF and spaces before colons', `  \r\n\t${JSON.stringify(list, null, '\t').replaceAll('": ', '" :  ').replaceAll('\n', '\r\n')}\n`],
    ['one object', JSON.stringify({ kind: 'Endpoints', metadata: { name: 'x' }, items: 'not a list' }, null, 1)],
    ['an empty List', '{"kind":"List","items":[ ]}'],
    ['a top-level array', JSON.stringify([{ kind: 'Endpoints' }, 1])],
  ])('gives the value and positions the YAML reader gives: %s', (_name, text) => {
    const json = readJsonInput(text);
    expect(json).toBeDefined();
    const yaml = asYaml(text);
    expect(json?.value).toEqual(yaml.value);
    expect(json?.start).toBe(yaml.start);
    expect(json?.itemStarts).toEqual(yaml.itemStarts);
  });

  it.each([
    ['YAML', 'kind: List\nitems: []\n'],
    ['a YAML flow mapping', '{kind: List, items: []}'],
    ['invalid JSON', '{"kind": "List",}'],
    ['two JSON documents', '{"kind":"A"}\n{"kind":"B"}'],
    ['a repeated key, where YAML reports an error', '{"kind":"List","items":[{"a":1,"a":2}]}'],
    ['a repeated key written with an escape', '{"kind":"List","kin\\u0064":"x"}'],
    ['a scalar', '"text"'],
    ['nothing', '  \n'],
  ])('leaves the text to the YAML reader: %s', (_name, text) => {
    expect(readJsonInput(text)).toBeUndefined();
  });
});
