import { describe, expect, it } from 'vitest';
import { generationOnCreate, generationOnUpdate } from '../../../src/apiserver/generation.js';

const slice = (extra: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'e', generation: 1, ...(labels === undefined ? {} : { labels }) },
  addressType: 'IPv4',
  ...extra,
});

describe('generation', () => {
  it('is set on create only by tracked policies; untracked keeps what the client sent', () => {
    expect(generationOnCreate('spec', 7)).toBe(1);
    expect(generationOnCreate('untracked', 7)).toBe(7);
    expect(generationOnCreate('untracked', undefined)).toBeUndefined();
  });

  it('does not move when a list is null on one side and absent on the other (Go sees one nil slice)', () => {
    expect(generationOnUpdate('spec-and-labels', slice({}), slice({ endpoints: null, ports: null }))).toBe(1);
    expect(generationOnUpdate('spec', slice({ ports: [{ port: 1, name: null }] }), slice({ ports: [{ port: 1 }] }))).toBe(1);
  });

  it('moves with spec changes, and with labels under spec-and-labels', () => {
    expect(generationOnUpdate('spec', slice({ endpoints: [{ addresses: ['10.0.0.1'] }] }), slice({ endpoints: null }))).toBe(2);
    expect(generationOnUpdate('spec', slice({}, { a: 'b' }), slice({}))).toBe(1);
    expect(generationOnUpdate('spec-and-labels', slice({}, { a: 'b' }), slice({}))).toBe(2);
    expect(generationOnUpdate('untracked', slice({ endpoints: [] }), slice({}))).toBe(1);
  });
});
