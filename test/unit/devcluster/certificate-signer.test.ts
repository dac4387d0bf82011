import { describe, expect, it } from 'vitest';
import { clientUsagesError, DEFAULT_SIGNING_DURATION_MS, signingWindow } from '../../../src/devcluster/certificate-signer.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('signingWindow (kube-controller-manager signer lifetimes)', () => {
  it.each([
    ['absent: the signer maximum, end backdated', undefined, DEFAULT_SIGNING_DURATION_MS - 5 * MINUTE],
    ['longer than the maximum: the maximum', 10 * 365 * 24 * 3600, DEFAULT_SIGNING_DURATION_MS - 5 * MINUTE],
    ['a short lifetime: exactly as asked', 3600, HOUR],
    ['under ten minutes (only stored data can ask): ten minutes', 60, 10 * MINUTE],
    ['eight hours or more: end backdated five minutes', 8 * 3600, 8 * HOUR - 5 * MINUTE],
    ['just under eight hours: not backdated', 8 * 3600 - 1, 8 * HOUR - 1000],
  ])('%s', (_what, expirationSeconds, lifetimeMs) => {
    const window = signingWindow(NOW, expirationSeconds, DEFAULT_SIGNING_DURATION_MS);
    expect(window.notBefore.getTime()).toBe(NOW - 5 * MINUTE);
    expect(window.notAfter.getTime()).toBe(NOW + lifetimeMs);
  });
});

describe('clientUsagesError (the kube-apiserver-client signer usages)', () => {
  it.each([
    [['client auth'], undefined],
    [['digital signature', 'key encipherment', 'client auth'], undefined],
    [['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
    [['digital signature'], 'missing required usage for client certificate: client auth'],
  ])('%j → %s', (usages, error) => {
    expect(clientUsagesError(usages)).toBe(error);
  });
});
