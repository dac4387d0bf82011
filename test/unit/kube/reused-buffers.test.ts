import { describe, expect, it } from 'vitest';
import { ReusedBuffers } from '../../../src/kube/reused-buffers.js';

describe('ReusedBuffers', () => {
  it('hands out a buffer at least as large as asked', () => {
    const buffers = new ReusedBuffers();
    expect(buffers.take(10).length).toBeGreaterThanOrEqual(10);
    expect(buffers.take(5_000_000).length).toBeGreaterThanOrEqual(5_000_000);
  });

  it('hands a buffer given back out again when it fits, and never to two takers at once', () => {
    const buffers = new ReusedBuffers();
    const first = buffers.take(1000);
    const second = buffers.take(1000);
    expect(second).not.toBe(first);
    buffers.give(first);
    expect(buffers.take(first.length)).toBe(first);
    expect(buffers.take(first.length)).not.toBe(first);
  });

  it('does not hand out a buffer given back that is too small', () => {
    const buffers = new ReusedBuffers();
    const small = buffers.take(1000);
    buffers.give(small);
    const large = buffers.take(small.length + 1);
    expect(large).not.toBe(small);
    expect(large.length).toBeGreaterThan(small.length);
  });

  it('keeps the larger buffers when more are given back than it keeps', () => {
    const buffers = new ReusedBuffers();
    const sizes = [1 << 18, 1 << 19, 1 << 20];
    const taken = sizes.map((size) => buffers.take(size));
    for (const buffer of taken) buffers.give(buffer);
    expect(buffers.take(1 << 20)).toBe(taken[2]);
    expect(buffers.take(1 << 19)).toBe(taken[1]);
    expect(buffers.take(1 << 18)).not.toBe(taken[0]);
  });
});
