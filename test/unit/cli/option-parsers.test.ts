import { describe, expect, it } from 'vitest';
import { definedOnly, dnsLabel, issuerUrl, parseBoolean, parseListenAddress, parseLogLevel, positiveInteger, positiveNumber, signingAlgorithm } from '../../../src/cli/option-parsers.js';

describe('option parsers', () => {
  it.each([
    ['127.0.0.1:6443', { host: '127.0.0.1', port: 6443 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    [':8080', { host: '0.0.0.0', port: 8080 }],
    ['8080', { host: '0.0.0.0', port: 8080 }],
  ])('parses %s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['127.0.0.1', '127.0.0.1:65536', '::1:80', '127.0.0.1:http', '', ':', 'host:', '[::1]', '99999'])('rejects listen address "%s" with the value in the message', (value) => {
    expect(() => parseListenAddress(value)).toThrow(`got "${value}"`);
  });

  it('accepts positive numbers and integers only', () => {
    expect(positiveNumber('0.5')).toBe(0.5);
    expect(positiveInteger('10')).toBe(10);
    for (const bad of ['0', '-1', 'abc', '', 'Infinity']) expect(() => positiveNumber(bad)).toThrow(/positive number/);
    for (const bad of ['0', '1.5', '-2', 'ten']) expect(() => positiveInteger(bad)).toThrow(/positive integer/);
  });

  it('parses booleans as environment variables write them, and nothing else', () => {
    for (const yes of ['true', 'TRUE', '1', ' True ']) expect(parseBoolean(yes)).toBe(true);
    for (const no of ['false', 'False', '0']) expect(parseBoolean(no)).toBe(false);
    for (const bad of ['', 'yes', 'no', 'on', 'off', '2', 'maybe']) expect(() => parseBoolean(bad)).toThrow(`expected true, false, 1 or 0, got "${bad}"`);
  });

  it('parses pino log levels and names the allowed ones otherwise', () => {
    expect(parseLogLevel('debug')).toBe('debug');
    expect(parseLogLevel('silent')).toBe('silent');
    expect(() => parseLogLevel('verbose')).toThrow('expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"');
    expect(() => parseLogLevel('INFO')).toThrow(/got "INFO"/);
  });

  it('accepts DNS-1123 labels only (names that become part of every host name)', () => {
    for (const good of ['vc1', 'my-vcluster', 'a', '0abc', 'x'.repeat(63)]) expect(dnsLabel(good)).toBe(good);
    for (const bad of ['VC_1', 'Vc1', '-vc', 'vc-', 'vc.1', '', 'x'.repeat(64), 'vc 1']) expect(() => dnsLabel(bad)).toThrow(/DNS-1123 label/);
  });

  it('accepts a token issuer only as an https URL that can equal a token\'s iss exactly', () => {
    expect(issuerUrl('https://vcsync-management.ns.svc:9443')).toBe('https://vcsync-management.ns.svc:9443');
    expect(issuerUrl('https://example.com/tenants/a')).toBe('https://example.com/tenants/a');
    for (const bad of ['http://example.com', 'https://example.com/', 'https://example.com?x=1', 'https://example.com#f', 'example.com', '']) {
      expect(() => issuerUrl(bad), bad).toThrow(`got "${bad}"`);
    }
  });

  it('accepts the token-signing algorithms RS256 and ES256 only', () => {
    expect(signingAlgorithm('RS256')).toBe('RS256');
    expect(signingAlgorithm('ES256')).toBe('ES256');
    for (const bad of ['rs256', 'HS256', 'none', '']) expect(() => signingAlgorithm(bad)).toThrow(`expected RS256 or ES256, got "${bad}"`);
  });

  it('definedOnly keeps the flags given, so that the defaults of the rest apply', () => {
    expect(definedOnly({ maxWatches: 5, maxWatchesPerUser: undefined })).toEqual({ maxWatches: 5 });
    expect(Object.keys(definedOnly({ a: undefined }))).toEqual([]);
  });
});
