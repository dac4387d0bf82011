import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiError } from '../../../src/apimachinery/index.js';
import { parseJsonBody, parseYamlBody } from '../../../src/apiserver/text-body-parsers.js';

/** The ApiError `parse` throws for `text`. */
function refusal(parseBody: (text: string) => unknown, text: string): ApiError {
  try {
    parseBody(text);
  } catch (error: unknown) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`no error for ${text.slice(0, 40)}`);
}

describe('parseJsonBody', () => {
  it('reads JSON, and an empty body as no body', () => {
    expect(parseJsonBody('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
    expect(parseJsonBody('  \n')).toBeUndefined();
  });

  it('answers 400 for invalid JSON and for nesting past the limit', () => {
    expect(refusal(parseJsonBody, '{"a": ')).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringMatching(/^the request body is not valid JSON: /) });
    expect(refusal(parseJsonBody, `${'['.repeat(101)}${']'.repeat(101)}`)).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining('more than 100 levels deep') });
  });
});

describe('parseYamlBody', () => {
  it('reads what yaml.parse reads', () => {
    const documents = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {app: web}\ndata:\n  script: |\n    echo [ok]\n  n: "1"\n',
      '# a comment\n---\nlist:\n- 1\n- two\n- {three: 3.0, four: null, five: true}\n',
      'base: &base {a: 1}\nfirst: *base\nsecond: [*base, *base]\n',
      '{"json": ["is", "yaml", 1e3]}',
      '# only a comment\n',
    ];
    for (const text of documents) expect(parseYamlBody(text)).toEqual(parse(text));
    expect(parseYamlBody('\n \n')).toBeUndefined();
  });

  it('yields JSON values only: the YAML 1.1 tags !!binary, !!set, !!omap and !!timestamp are read as what they tag (a 500 of the hostile-input test)', () => {
    // Resolved, they became a Uint8Array, Set, Map and Date that the writes after the parser choke on.
    expect(parseYamlBody('!!binary aGVsbG8=\n')).toBe('aGVsbG8=');
    expect(parseYamlBody('a: !!binary aGVsbG8=\nb: !!set {x, y}\nc: !!omap [{x: 1}]\nd: !!timestamp 2001-12-14\n')).toEqual({ a: 'aGVsbG8=', b: { x: null, y: null }, c: [{ x: 1 }], d: '2001-12-14' });
  });

  it('answers 400 for invalid YAML, saying where', () => {
    expect(refusal(parseYamlBody, 'metadata: [unclosed')).toMatchObject({ code: 400, message: expect.stringMatching(/^the request body is not valid YAML: .+ at line 1, column \d+$/) });
    expect(refusal(parseYamlBody, 'a: 1\nb: 2\na: 3\n').message).toBe('the request body is not valid YAML: Map keys must be unique at line 3, column 1');
  });

  it('answers 400 for more than one document', () => {
    expect(refusal(parseYamlBody, 'a: 1\n---\nb: 2\n').message).toBe('the request body holds more than one YAML document (the second starts at line 2, column 1); send one object per request');
  });

  it('answers 400 for aliases that cannot be resolved or expand too far', () => {
    expect(refusal(parseYamlBody, 'a: *missing\n').message).toMatch(/^the YAML request body's aliases cannot be resolved: Unresolved alias .*missing; an anchor must come before its aliases and may be expanded at most 100 times/);
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefgh') lines.push(`${name}: &${name} [${Array(10).fill(`*${String.fromCharCode(name.charCodeAt(0) - 1)}`).join(', ')}]`);
    expect(refusal(parseYamlBody, lines.join('\n'))).toMatchObject({ code: 400, message: expect.stringContaining('may be expanded at most 100 times') });
  });

  it('answers 400 for aliases that nest the value past the limit or into itself', () => {
    expect(refusal(parseYamlBody, 'a: &a {b: *a}\n').message).toContain('or make it contain itself');
    const fifty = (inner: string) => `${'['.repeat(50)}${inner}${']'.repeat(50)}`;
    expect(parseYamlBody(`a: &a ${fifty('1')}\nb: ${fifty('2')}\n`)).toBeDefined();
    expect(refusal(parseYamlBody, `a: &a ${fifty('1')}\nb: ${fifty('*a')}\n`).message).toContain('more than 100 levels deep');
  });

  it('answers 400 for a body past the token, line, alias or nesting limits', () => {
    expect(refusal(parseYamlBody, '['.repeat(100_000))).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringContaining('more than 100 levels deep (at line 1, column 101)') });
    expect(refusal(parseYamlBody, `a: [${Array(4000).fill('1').join(',')}]`).message).toContain('more than 10000 tokens');
    expect(refusal(parseYamlBody, `a: |\n${'  x\n'.repeat(100_001)}`).message).toContain('more than 100000 lines');
    expect(refusal(parseYamlBody, `a: &x 1\nb: [${Array(101).fill('*x').join(', ')}]`).message).toContain('more than 100 aliases');
  });
});
