import { describe, expect, it } from 'vitest';
import { failureStatus, invalid, methodNotAllowed, notFound, wireDetails } from '../../../src/apimachinery/index.js';

describe('the Status catalogue', () => {
  it('leaves out empty details fields as the real server’s omitempty does, keeping the details object', () => {
    expect(wireDetails({ name: '', group: '', kind: '', uid: '', causes: [], retryAfterSeconds: 0 })).toEqual({});
    expect(wireDetails({ name: 'web', group: 'apps', kind: 'deployments', uid: 'u', causes: [{ reason: 'R', message: 'm' }], retryAfterSeconds: 2 })).toEqual({
      name: 'web', group: 'apps', kind: 'deployments', uid: 'u', causes: [{ reason: 'R', message: 'm' }], retryAfterSeconds: 2,
    });
    expect(failureStatus(500, 'InternalError', 'boom')).not.toHaveProperty('details');
    expect(failureStatus(405, 'MethodNotAllowed', 'no', {}).details).toEqual({});
  });

  it('names a core resource without a group and an object without a name', () => {
    expect(notFound({ group: '', resource: 'configmaps', name: 'x' }).toStatus().details).toEqual({ name: 'x', kind: 'configmaps' });
    const nameless = invalid('ConfigMap', '', '', [{ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' }]).toStatus();
    expect(nameless.details).toEqual({ kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' }] });
  });

  it('answers MethodNotAllowed with empty details', () => {
    expect(methodNotAllowed('PATCH', '/api/v1/namespaces/default/configmaps').toStatus().details).toEqual({});
  });
});
