import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { derBitString, derBoolean, derContext, derElement, derObjectIdentifier, derOctetString, DerTag, derSequence, derSet, derSmallInteger, derUtf8String, pemOf } from '#vcsync/apiserver/security/der-writer.js';
import type { SeededRandom } from '../seeded-random.js';

/**
 * PKCS#10 certificate requests written by hand, DER byte by byte: validly self-signed whatever
 * their attributes hold, so that only the contents decide whether a server refuses them (the
 * shapes no library writes, which a key holder can still send). Shared by the HTTP fuzzer and the
 * tests (test/support/certificate-requests.ts).
 */

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const SUBJECT_ALT_NAME = '2.5.29.17';

/**
 * A PEM request with subject CN=`commonName` and exactly `attributes` (each a DER element),
 * self-signed with ECDSA P-256 over SHA-256 by `key` (a new key by default).
 */
export function requestWithAttributes(attributes: readonly Buffer[], commonName = 'hand-written', key: { publicKey: KeyObject; privateKey: KeyObject } = generateKeyPairSync('ec', { namedCurve: 'P-256' })): string {
  const info = derSequence(
    derSmallInteger(0),
    derSequence(derSet(derSequence(derObjectIdentifier('2.5.4.3'), derUtf8String(commonName)))),
    key.publicKey.export({ type: 'spki', format: 'der' }),
    derContext(0, true, ...attributes),
  );
  const signature = derBitString(sign('sha256', info, key.privateKey));
  return pemOf('CERTIFICATE REQUEST', derSequence(info, derSequence(derObjectIdentifier('1.2.840.10045.4.3.2')), signature));
}

/** The extensionRequest attribute (PKCS#9) holding `extensions`. */
export function extensionRequest(...extensions: readonly Buffer[]): Buffer {
  return derSequence(derObjectIdentifier(EXTENSION_REQUEST), derSet(derSequence(...extensions)));
}

/** One attribute a request may carry, well-formed or not, picked by `random`. */
export function fuzzAttribute(random: SeededRandom): Buffer {
  const name = derOctetString(derSequence(derContext(2, false, Buffer.from(`x${random.int(100)}.example`))));
  const shapes: Array<() => Buffer> = [
    () => extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), name)),
    () => extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derBoolean(random.chance(0.5)), name)),
    () => extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME))), // no value
    () => extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derUtf8String('not an octet string'))),
    () => extensionRequest(derSequence(derObjectIdentifier(SUBJECT_ALT_NAME), derSmallInteger(1), name)), // critical not a BOOLEAN
    () => extensionRequest(derSequence(derElement(DerTag.OBJECT_IDENTIFIER, Buffer.from([0x55, 0x9d])), name)), // identifier cut off
    () => extensionRequest(derElement(DerTag.OBJECT_IDENTIFIER, random.bytes(1 + random.int(8)))),
    () => derSequence(derObjectIdentifier(EXTENSION_REQUEST), derSet(derSet())),
    () => derSequence(derObjectIdentifier(EXTENSION_REQUEST), derSet()),
    () => derSequence(derObjectIdentifier('1.2.840.113549.1.9.7'), derUtf8String('challenge, not in a SET')),
    () => derSmallInteger(random.int(100)),
    () => derSequence(derElement(DerTag.OBJECT_IDENTIFIER, random.bytes(1 + random.int(12))), derSet(derUtf8String('x'))),
    () => derElement(DerTag.SEQUENCE, random.bytes(random.int(40))), // well-formed outside, noise inside
  ];
  return random.pick(shapes)();
}
