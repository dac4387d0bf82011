import { describe, expect, it } from 'vitest';
import { ApiError, isConflict, isKnownStatusReason, isNotFound, reasonForHttpCode, STATUS_REASON_CODES, statusFromHttpCode, type StatusReason } from '../../../src/apimachinery/index.js';

describe('the Status reason catalogue', () => {
  it('has every reason of metav1.StatusReason with its HTTP code', () => {
    expect(STATUS_REASON_CODES).toEqual({
      Unauthorized: 401,
      Forbidden: 403,
      NotFound: 404,
      AlreadyExists: 409,
      Conflict: 409,
      Gone: 410,
      Invalid: 422,
      ServerTimeout: 500,
      Timeout: 504,
      TooManyRequests: 429,
      BadRequest: 400,
      MethodNotAllowed: 405,
      NotAcceptable: 406,
      RequestEntityTooLarge: 413,
      UnsupportedMediaType: 415,
      InternalError: 500,
      Expired: 410,
      ServiceUnavailable: 503,
    });
    expect(Object.isFrozen(STATUS_REASON_CODES)).toBe(true);
  });

  it('reads a bare HTTP code as the general reason of that code', () => {
    expect(reasonForHttpCode(409)).toBe('Conflict');
    expect(reasonForHttpCode(410)).toBe('Gone');
    expect(reasonForHttpCode(500)).toBe('InternalError');
    expect(reasonForHttpCode(418)).toBe('');
    for (const code of [400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 500, 503, 504]) {
      expect(isKnownStatusReason(reasonForHttpCode(code))).toBe(true);
    }
  });

  it('is the same type on both sides: a server-side failure and a received one classify alike', () => {
    const decided = new ApiError('NotFound', 'configmaps "a" not found', { name: 'a', kind: 'configmaps' });
    const received = new ApiError({ httpStatus: 404, status: decided.toStatus(), verb: 'GET', path: '/api/v1/namespaces/d/configmaps/a' });
    for (const error of [decided, received]) {
      expect(isNotFound(error)).toBe(true);
      expect(isConflict(error)).toBe(false);
      expect(error.code).toBe(404);
      expect(error.reason).toBe('NotFound');
    }
    expect(decided.request).toBeUndefined();
    expect(received.request).toEqual({ verb: 'GET', path: '/api/v1/namespaces/d/configmaps/a' });
    expect(received.message).toBe('GET /api/v1/namespaces/d/configmaps/a: configmaps "a" not found');
    expect(received.toStatus()).toEqual(decided.toStatus());
  });

  it.each(Object.entries(STATUS_REASON_CODES) as [StatusReason, number][])('a server answers %s with HTTP %i', (reason, code) => {
    const status = new ApiError(reason, 'why').toStatus();
    expect(status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'why', reason, code });
  });

  it('builds the Status of a bare HTTP answer from the code', () => {
    expect(statusFromHttpCode(503, 'down')).toEqual({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'down', reason: 'ServiceUnavailable', code: 503 });
  });
});
