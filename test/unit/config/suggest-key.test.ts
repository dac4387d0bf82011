import { describe, expect, it } from 'vitest';
import { editDistance, suggestKey } from '../../../src/config/suggest-key.js';

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['toHost', 'toHost', 0],
    ['toHots', 'toHost', 1], // one transposition, not two substitutions
    ['endpoint', 'endpoints', 1],
    ['patchs', 'patches', 1],
    ['enabeld', 'enabled', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3], // OSA, not unrestricted Damerau (which gives 2)
  ])('%j → %j is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('suggestKey', () => {
  const toHost = ['pods', 'secrets', 'configMaps', 'services', 'endpoints', 'endpointSlices', 'namespaces'];

  it('suggests the closest known key within two edits', () => {
    expect(suggestKey('toHots', ['toHost', 'fromHost'])).toBe('toHost');
    expect(suggestKey('endpoint', toHost)).toBe('endpoints');
    expect(suggestKey('endponts', toHost)).toBe('endpoints');
    expect(suggestKey('namespace', toHost)).toBe('namespaces');
  });

  it('ignores case', () => {
    expect(suggestKey('ToHost', ['toHost', 'fromHost'])).toBe('toHost');
    expect(suggestKey('ENDPOINTS', toHost)).toBe('endpoints');
  });

  it('suggests nothing when no key is close, or the key is known', () => {
    expect(suggestKey('replicas', toHost)).toBeUndefined();
    expect(suggestKey('endpoints', toHost)).toBeUndefined();
    expect(suggestKey('x', [])).toBeUndefined();
  });

  it('allows one edit only for keys of up to three characters', () => {
    expect(suggestKey('pod', toHost)).toBe('pods');
    expect(suggestKey('ab', ['pro'])).toBeUndefined();
  });

  it('prefers the smallest distance, then the earlier candidate', () => {
    expect(suggestKey('secret', ['secrets', 'secret1'])).toBe('secrets');
    expect(suggestKey('abcd', ['abxy', 'abcx'])).toBe('abcx');
  });
});
