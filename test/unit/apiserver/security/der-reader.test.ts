import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../../../src/apiserver/security/certificate-issuer.js';
import { createCertificateRequest } from '../../../../src/apiserver/security/certificate-request-builder.js';
import { certificateRequestParts, ClientCertificateAuthority } from '../../../../src/apiserver/security/client-certificate-authority.js';
import { childrenOf, MalformedDerError, objectIdentifierOf, pemBlock, readElement } from '../../../../src/apiserver/security/der-reader.js';
import {
  derBoolean,
  derContext,
  derElement,
  derObjectIdentifier,
  derOctetString,
  DerTag,
  derSequence,
  derSet,
  derSmallInteger,
  derUtf8String,
  pemOf,
} from '../../../../src/apiserver/security/der-writer.js';
import { certificateRequestError } from '../../../../src/devcluster/certificate-request.js';
import { extensionRequest, requestWithAttributes } from '../../../support/certificate-requests.js';
import { SeededRandom, seedFromEnvironment } from '../../../support/seeded-random.js';

const SUBJECT_ALT_NAME = '2.5.29.17';

/** What `fn` throws, or undefined. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (error: unknown) {
    return error;
  }
}

describe('readElement', () => {
  it('reads short and long lengths', () => {
    expect(readElement(Buffer.from([0x04, 0x02, 0xaa, 0xbb]), 0)).toEqual({ tag: 0x04, start: 0, contentStart: 2, end: 4 });
    const long = Buffer.concat([Buffer.from([0x04, 0x81, 0x80]), Buffer.alloc(128)]);
    expect(readElement(long, 0)).toEqual({ tag: 0x04, start: 0, contentStart: 3, end: 131 });
    const longer = Buffer.concat([Buffer.from([0x04, 0x82, 0x01, 0x00]), Buffer.alloc(256)]);
    expect(readElement(longer, 0)).toEqual({ tag: 0x04, start: 0, contentStart: 4, end: 260 });
  });

  it.each([
    ['no length octet', [0x30]],
    ['contents past the end', [0x30, 0x05, 0x00]],
    ['length octets past the end', [0x30, 0x82, 0x01]],
    ['an indefinite length', [0x30, 0x80, 0x00, 0x00]],
    ['five length octets', [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00]],
    ['a long form for a short length', [0x04, 0x81, 0x05, 1, 2, 3, 4, 5]],
    ['a leading zero length octet', [0x04, 0x82, 0x00, 0x80, ...new Array<number>(128).fill(0)]],
  ])('refuses %s', (_what, bytes) => {
    expect(thrown(() => readElement(Buffer.from(bytes), 0))).toBeInstanceOf(MalformedDerError);
  });

  it('keeps an element inside the limit it is given', () => {
    const der = Buffer.from([0x30, 0x03, 0x04, 0x02, 0xaa]); // the child claims one octet more than its parent holds
    const parent = readElement(Buffer.concat([der, Buffer.from([0xbb])]), 0);
    expect(thrown(() => childrenOf(Buffer.concat([der, Buffer.from([0xbb])]), parent))).toBeInstanceOf(MalformedDerError);
  });
});

describe('objectIdentifierOf', () => {
  it.each(['1.2.840.10045.4.3.2', '2.5.29.17', '1.3.6.1.4.1.311.21.20', '2.999.3', '0.0', `1.2.${0x7fff_ffff}`])('reads %s as the writer wrote it', (dotted) => {
    const der = derObjectIdentifier(dotted);
    expect(objectIdentifierOf(der, readElement(der, 0))).toBe(dotted);
  });

  it.each([
    ['an empty identifier', []],
    ['a subidentifier cut off', [0x2a, 0x86]],
    ['a subidentifier with a leading 0x80', [0x2a, 0x80, 0x01]],
    ['a subidentifier beyond 2^31 - 1', [0x2a, 0x88, 0x80, 0x80, 0x80, 0x00]],
  ])('refuses %s', (_what, contents) => {
    const der = derElement(DerTag.OBJECT_IDENTIFIER, Buffer.from(contents));
    expect(thrown(() => objectIdentifierOf(der, readElement(der, 0)))).toBeInstanceOf(MalformedDerError);
  });
});

describe('pemBlock', () => {
  it('gives the DER of a block with the label asked, whatever its line breaks', () => {
    const pem = pemOf('CERTIFICATE REQUEST', Buffer.from('hello')).replace(/\n/g, '\r\n');
    expect(pemBlock(pem, 'CERTIFICATE REQUEST')).toEqual(Buffer.from('hello'));
    expect(pemBlock(pem, 'CERTIFICATE')).toBeUndefined();
    expect(pemBlock('no pem here', 'CERTIFICATE')).toBeUndefined();
  });
});

describe('a certificate request the server stores is one its signer can sign', () => {
  let authority: ClientCertificateAuthority;
  beforeAll(async () => {
    authority = ClientCertificateAuthority.from((await createCertificateAuthority('der-reader-ca', 3600_000)));
  });
  const signing = () => ({ keyUsages: [] as const, notBefore: new Date(), notAfter: new Date(Date.now() + 3600_000) });

  it.each([
    ['an extension without its value', extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME)))],
    ['an extension whose value is not an OCTET STRING', extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derUtf8String('x')))],
    ['a critical flag that is not a BOOLEAN', extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derSmallInteger(1), derOctetString(Buffer.alloc(2))))],
    ['an extension identifier cut off', extensionRequest(derSequence(derElement(DerTag.OBJECT_IDENTIFIER, Buffer.from([0x55, 0x9d])), derOctetString(Buffer.alloc(2))))],
    ['extensions that are not a SEQUENCE', derSequence(derObjectIdentifier('1.2.840.113549.1.9.14'), derSet(derSet()))],
  ])('refuses at validation a signed request with %s (the signer could never sign it)', (_what, attribute) => {
    const pem = requestWithAttributes([attribute]);
    expect(certificateRequestError(pem)).toBe('x509: malformed certificate request');
    expect(thrown(() => authority.sign({ csrPem: pem, ...signing() }))).toBeInstanceOf(TypeError);
  });

  it('passes over an attribute that does not parse, as Go does, and signs the request', () => {
    const odd = [
      derSmallInteger(7), // not a SEQUENCE
      derSequence(derObjectIdentifier('1.2.840.113549.1.9.7'), derUtf8String('not a SET')), // challengePassword, wrongly typed
      derSequence(derObjectIdentifier('1.2.840.113549.1.9.2'), derSet()), // no value
    ];
    const subjectAltName = derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derBoolean(false), derOctetString(derSequence(derContext(2, false, Buffer.from('x.example')))));
    const pem = requestWithAttributes([...odd, extensionRequest(subjectAltName)]);
    expect(certificateRequestError(pem)).toBeUndefined();
    const der = pemBlock(pem, 'CERTIFICATE REQUEST') as Buffer;
    expect(certificateRequestParts(der).subjectAltName).toEqual(subjectAltName);
    expect(authority.sign({ csrPem: pem, ...signing() })).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('judges every truncation and thousands of mutations of a real request without any error but a refusal', () => {
    const random = new SeededRandom(seedFromEnvironment('VCSYNC_FUZZ_SEED', 20261127));
    const pem = createCertificateRequest({ commonName: 'mutant', organizations: ['viewers'] }).requestPem;
    const der = pemBlock(pem, 'CERTIFICATE REQUEST') as Buffer;
    const inputs: Buffer[] = [];
    for (let length = 0; length < der.length; length += 1) inputs.push(der.subarray(0, length));
    for (let round = 0; round < 3000; round += 1) {
      const mutant = Buffer.from(der);
      for (let flips = 1 + random.int(3); flips > 0; flips -= 1) mutant[random.int(mutant.length)] = random.int(256);
      inputs.push(mutant);
      inputs.push(Buffer.concat([Buffer.from([0x30, 0x82]), random.bytes(2 + random.int(300))])); // a SEQUENCE of noise
    }
    let refused = 0;
    for (const input of inputs) {
      const error = certificateRequestError(pemOf('CERTIFICATE REQUEST', input));
      if (error !== undefined) refused += 1;
      const failure = thrown(() => certificateRequestParts(input));
      if (failure !== undefined) expect(failure).toBeInstanceOf(MalformedDerError);
      // What validation accepts, the signer signs.
      if (error === undefined) expect(authority.sign({ csrPem: pemOf('CERTIFICATE REQUEST', input), ...signing() })).toMatch(/^-----BEGIN CERTIFICATE-----/);
    }
    expect(refused).toBeGreaterThan(inputs.length * 0.9);
  });
});
