import { describe, expect, it } from 'vitest';
import { derBitString, derContext, derElement, derNamedBits, derObjectIdentifier, derSmallInteger, derTime, derUnsignedInteger, pemOf } from '../../../../src/apiserver/security/der-writer.js';

const hex = (buffer: Buffer): string => buffer.toString('hex');

describe('DER writer', () => {
  it('writes short and long lengths (X.690 8.1.3)', () => {
    expect(hex(derElement(0x04, Buffer.alloc(3)))).toBe('0403000000');
    expect(hex(derElement(0x04, Buffer.alloc(127))).slice(0, 4)).toBe('047f');
    expect(hex(derElement(0x04, Buffer.alloc(128))).slice(0, 6)).toBe('048180');
    expect(hex(derElement(0x04, Buffer.alloc(300))).slice(0, 8)).toBe('0482012c');
  });

  it.each([
    ['1.2.840.10045.4.3.2', '06082a8648ce3d040302'],
    ['2.5.4.3', '0603550403'],
    ['1.3.6.1.5.5.7.3.2', '06082b06010505070302'],
    ['2.999.1', '0603883701'],
  ])('encodes the object identifier %s', (dotted, expected) => {
    expect(hex(derObjectIdentifier(dotted))).toBe(expected);
  });

  it('refuses what is not an object identifier', () => {
    expect(() => derObjectIdentifier('1')).toThrow(RangeError);
    expect(() => derObjectIdentifier('3.1')).toThrow(RangeError);
    expect(() => derObjectIdentifier('1.40')).toThrow(RangeError);
    expect(() => derObjectIdentifier('1.2.x')).toThrow(RangeError);
  });

  it('writes non-negative integers minimally, with a zero octet before a set top bit', () => {
    expect(hex(derSmallInteger(0))).toBe('020100');
    expect(hex(derSmallInteger(2))).toBe('020102');
    expect(hex(derSmallInteger(128))).toBe('02020080');
    expect(hex(derUnsignedInteger(Buffer.from('0000ff01', 'hex')))).toBe('020300ff01');
    expect(hex(derUnsignedInteger(Buffer.from('7f', 'hex')))).toBe('02017f');
  });

  it('drops the trailing zero bits of a named-bit string (KeyUsage)', () => {
    expect(hex(derNamedBits([0]))).toBe('03020780'); // digitalSignature
    expect(hex(derNamedBits([0, 2]))).toBe('030205a0'); // digitalSignature, keyEncipherment
    expect(hex(derNamedBits([2]))).toBe('03020520');
    expect(hex(derNamedBits([8]))).toBe('0303070080');
    expect(hex(derBitString(Buffer.from([1, 2])))).toBe('0303000102');
  });

  it('writes UTCTime through 2049 and GeneralizedTime from 2050 on, in whole seconds', () => {
    expect(derTime(new Date('2026-11-27T20:44:50.999Z')).toString('latin1', 2)).toBe('261127204450Z');
    expect(derTime(new Date('2026-11-27T20:44:50Z'))[0]).toBe(0x17);
    expect(derTime(new Date('2050-01-01T00:00:00Z')).toString('latin1', 2)).toBe('20500101000000Z');
    expect(derTime(new Date('2050-01-01T00:00:00Z'))[0]).toBe(0x18);
    expect(derTime(new Date('1949-12-31T23:59:59Z')).toString('latin1', 2)).toBe('19491231235959Z');
  });

  it('writes context tags constructed or primitive', () => {
    expect(hex(derContext(0, true))).toBe('a000');
    expect(hex(derContext(3, true, Buffer.from('3000', 'hex')))).toBe('a3023000');
    expect(hex(derContext(0, false, Buffer.from([0xab])))).toBe('8001ab');
  });

  it('armours DER as PEM in 64-column lines', () => {
    const pem = pemOf('CERTIFICATE REQUEST', Buffer.alloc(100, 0xff));
    const lines = pem.trimEnd().split('\n');
    expect(lines[0]).toBe('-----BEGIN CERTIFICATE REQUEST-----');
    expect(lines.at(-1)).toBe('-----END CERTIFICATE REQUEST-----');
    expect(lines.slice(1, -1).map((line) => line.length)).toEqual([64, 64, 8]);
  });
});
