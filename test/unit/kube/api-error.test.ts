import { describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isExpired, isGone, isInvalid, isNamespaceNotFound, isNotFound, isResourceExpired, isTooManyRequests, type Status, statusFromHttpCode } from '../../../src/apimachinery/index.js';
import { isRetryable, isTransportError, TransportError } from '../../../src/kube/kube-errors.js';

function apiError(httpStatus: number, status: Status): ApiError {
  return new ApiError({ httpStatus, status, verb: 'GET', path: '/x' });
}

describe('API error classification', () => {
  it('classifies by Status reason, regardless of message', () => {
    const notFound = apiError(404, { kind: 'Status', reason: 'NotFound', code: 404, message: 'conflict already exists' });
    expect(isNotFound(notFound)).toBe(true);
    expect(isConflict(notFound)).toBe(false);
    expect(isAlreadyExists(notFound)).toBe(false);
    expect(isAlreadyExists(apiError(409, { kind: 'Status', reason: 'AlreadyExists', code: 409 }))).toBe(true);
    expect(isConflict(apiError(409, { kind: 'Status', reason: 'AlreadyExists', code: 409 }))).toBe(false);
    expect(isConflict(apiError(409, { kind: 'Status', reason: 'Conflict', code: 409 }))).toBe(true);
    expect(isInvalid(apiError(422, { kind: 'Status', reason: 'Invalid', code: 422 }))).toBe(true);
  });

  it('tells a missing namespace from a missing object by the Status details, not the message', () => {
    const namespaceMissing = apiError(404, { kind: 'Status', reason: 'NotFound', code: 404, message: 'x', details: { name: 'vcluster-x', kind: 'namespaces' } });
    const leaseMissing = apiError(404, {
      kind: 'Status', reason: 'NotFound', code: 404, message: 'namespaces "vcluster-x" not found', details: { name: 'vcsync', group: 'coordination.k8s.io', kind: 'leases' },
    });
    expect(isNamespaceNotFound(namespaceMissing)).toBe(true);
    expect(isNamespaceNotFound(leaseMissing)).toBe(false);
    expect(isNamespaceNotFound(apiError(403, { kind: 'Status', reason: 'Forbidden', code: 403, details: { kind: 'namespaces' } }))).toBe(false);
  });

  it('falls back to the code only when the reason is missing or unknown', () => {
    expect(isNotFound(apiError(404, { kind: 'Status', code: 404 }))).toBe(true);
    expect(isNotFound(apiError(404, { kind: 'Status', code: 404, reason: 'SomethingNew' }))).toBe(true);
    expect(isTooManyRequests(apiError(429, { kind: 'Status', code: 429 }))).toBe(true);
    expect(isNotFound(apiError(404, { kind: 'Status', code: 404, reason: 'Forbidden' }))).toBe(false);
  });

  it('recognises 410 Gone and in-stream Expired as needing a relist', () => {
    const gone = apiError(410, { kind: 'Status', reason: 'Gone', code: 410 });
    const expired = apiError(410, { kind: 'Status', reason: 'Expired', code: 410 });
    expect(isGone(gone)).toBe(true);
    expect(isExpired(expired)).toBe(true);
    expect(isGone(expired)).toBe(false);
    expect(isResourceExpired(gone) && isResourceExpired(expired)).toBe(true);
    expect(isResourceExpired(apiError(500, statusFromHttpCode(500, 'boom')))).toBe(false);
  });

  it('keeps transport failures apart from API answers', () => {
    const transport = new TransportError('GET /x: connect ECONNREFUSED', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    expect(isTransportError(transport)).toBe(true);
    expect(transport.syscallCode).toBe('ECONNREFUSED');
    expect(isNotFound(transport)).toBe(false);
    expect(isRetryable(transport)).toBe(true);
    expect(isRetryable(apiError(503, statusFromHttpCode(503, 'down')))).toBe(true);
    expect(isRetryable(apiError(404, statusFromHttpCode(404, 'x')))).toBe(false);
    expect(isNotFound(new Error('not found'))).toBe(false);
  });
});
