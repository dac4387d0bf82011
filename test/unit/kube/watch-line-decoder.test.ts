import { describe, expect, it } from 'vitest';
import { KubeErrorCode } from '../../../src/kube/kube-errors.js';
import { WatchLineDecoder, parseWatchEvent } from '../../../src/kube/watch-line-decoder.js';

describe('WatchLineDecoder', () => {
  it('joins lines split across chunks and splits chunks holding several lines', () => {
    const decoder = new WatchLineDecoder();
    expect(decoder.push('{"a":')).toEqual([]);
    expect(decoder.push('1}\n{"b":2}\n{"c"')).toEqual(['{"a":1}', '{"b":2}']);
    expect(decoder.push(':3}\r\n\n')).toEqual(['{"c":3}']);
    expect(decoder.end()).toEqual([]);
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const decoder = new WatchLineDecoder();
    const bytes = Buffer.from('{"name":"žluťoučký"}\n', 'utf8');
    const lines: string[] = [];
    for (let i = 0; i < bytes.length; i++) lines.push(...decoder.push(bytes.subarray(i, i + 1)));
    expect(lines).toEqual(['{"name":"žluťoučký"}']);
  });

  it('returns a last line without trailing newline at end', () => {
    const decoder = new WatchLineDecoder();
    expect(decoder.push('{"x":1}\n{"y":2}')).toEqual(['{"x":1}']);
    expect(decoder.end()).toEqual(['{"y":2}']);
  });
});

describe('parseWatchEvent', () => {
  it('parses typed events and rejects malformed lines with a stable code', () => {
    const event = parseWatchEvent('{"type":"ADDED","object":{"metadata":{"name":"a"}}}');
    expect(event.type).toBe('ADDED');
    expect(() => parseWatchEvent('not json')).toThrow(expect.objectContaining({ code: KubeErrorCode.badResponse }));
    expect(() => parseWatchEvent('{"type":"WHAT","object":{}}')).toThrow(expect.objectContaining({ code: KubeErrorCode.badResponse }));
    expect(() => parseWatchEvent('{"type":"ADDED"}')).toThrow(expect.objectContaining({ code: KubeErrorCode.badResponse }));
  });
});
