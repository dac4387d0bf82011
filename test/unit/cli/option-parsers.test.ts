import { describe, expect, it } from 'vitest';
import { parseListenAddress, positiveInteger, positiveNumber } from '../../../src/cli/option-parsers.js';

describe('option parsers', () => {
  it.each([
    ['127.0.0.1:6443', { host: '127.0.0.1', port: 6443 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
  ])('parses %s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['6443', '127.0.0.1', '127.0.0.1:65536', ':80', '::1:80', '127.0.0.1:http'])('rejects %s with the value in the message', (value) => {
    expect(() => parseListenAddress(value)).toThrow(`got "${value}"`);
  });

  it('accepts positive numbers and integers only', () => {
    expect(positiveNumber('0.5')).toBe(0.5);
    expect(positiveInteger('10')).toBe(10);
    for (const bad of ['0', '-1', 'abc', '', 'Infinity']) expect(() => positiveNumber(bad)).toThrow(/positive number/);
    for (const bad of ['0', '1.5', '-2', 'ten']) expect(() => positiveInteger(bad)).toThrow(/positive integer/);
  });
});
