import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../../src/apiserver/security/certificate-issuer.js';
import { certificateSigningRequest, createClientRequest, type ClientRequest } from '../../support/certificate-requests.js';
import { useDevclusterFixture, type Fixture } from '../../support/devcluster-fixture.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const MERGE = 'application/merge-patch+json';
describe('devcluster CertificateSigningRequests: the real server rules', () => {
  const fixture = useDevclusterFixture();
  let client: ClientRequest;
  /** A certificate (any) for status.certificate, PEM. */
  let someCertificatePem: string;
  beforeAll(async () => {
    let authority;
    [client, authority] = await Promise.all([createClientRequest('jane', ['dev']), createCertificateAuthority('some-ca', 3_600_000)]);
    someCertificatePem = authority.certPem;
  });

  const create = (name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): ReturnType<Fixture['request']> =>
    fixture.request(CSRS, { method: 'POST', body: { ...certificateSigningRequest(name, client.csrPem, spec), ...extra } });
  const causes = (body: { details?: { causes?: { reason: string; field: string }[] } }): unknown => body.details?.causes?.map(({ reason, field }) => ({ reason, field }));
  const approved = (message = 'approved by the test'): Record<string, unknown> => ({ type: 'Approved', status: 'True', reason: 'TestApproval', message });

  it('is served cluster-scoped under certificates.k8s.io/v1 with the approval and status subresources', async () => {
    const { body } = await fixture.request('/apis/certificates.k8s.io/v1');
    expect(body.resources.map((resource: { name: string; namespaced: boolean; verbs: string[] }) => [resource.name, resource.namespaced, [...resource.verbs].sort()])).toEqual([
      ['certificatesigningrequests', false, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']],
      ['certificatesigningrequests/approval', false, ['get', 'patch', 'update']],
      ['certificatesigningrequests/status', false, ['get', 'patch', 'update']],
    ]);
    const openapi = await fixture.request('/openapi/v3/apis/certificates.k8s.io/v1');
    expect(Object.keys(openapi.body.paths)).toContain('/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval');
  });

  it('records the requester, clears what a client may not set on create, and keeps the spec immutable', async () => {
    const created = await create('requester', { username: 'root', groups: ['system:masters'], uid: 'forged' }, { status: { conditions: [approved()] } });
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(created.body.spec.uid).toBeUndefined();
    expect(created.body.status).toEqual({});
    const updated = await fixture.request(`${CSRS}/requester`, { method: 'PATCH', contentType: MERGE, body: { spec: { signerName: 'example.com/other', expirationSeconds: 900 }, metadata: { labels: { a: 'b' } } } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec.signerName).toBe('kubernetes.io/kube-apiserver-client');
    expect(updated.body.spec.expirationSeconds).toBeUndefined();
    expect(updated.body.metadata.labels).toEqual({ a: 'b' });
  });

  it.each([
    ['a request that is not PEM', { request: Buffer.from('hello').toString('base64') }, [{ reason: 'FieldValueInvalid', field: 'spec.request' }]],
    ['no signer name', { signerName: undefined }, [{ reason: 'FieldValueRequired', field: 'spec.signerName' }]],
    ['the legacy signer name', { signerName: 'kubernetes.io/legacy-unknown' }, [{ reason: 'FieldValueInvalid', field: 'spec.signerName' }]],
    ['a signer name without a path', { signerName: 'example.com' }, [{ reason: 'FieldValueInvalid', field: 'spec.signerName' }]],
    ['no usages', { usages: [] }, [{ reason: 'FieldValueRequired', field: 'spec.usages' }]],
    ['an unknown usage', { usages: ['client auth', 'flying'] }, [{ reason: 'FieldValueNotSupported', field: 'spec.usages[1]' }]],
    ['a duplicate usage', { usages: ['client auth', 'client auth'] }, [{ reason: 'FieldValueDuplicate', field: 'spec.usages[1]' }]],
    ['expirationSeconds under 600', { expirationSeconds: 599 }, [{ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds' }]],
  ])('refuses %s with 422 naming the field', async (_what, spec, expected) => {
    const answer = await create(`invalid-${Math.random().toString(36).slice(2, 8)}`, spec);
    expect(answer.status).toBe(422);
    expect(answer.body.reason).toBe('Invalid');
    expect(causes(answer.body)).toEqual(expected);
  });

  it('refuses a request whose signature does not verify', async () => {
    const der = Buffer.from(client.csrPem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    // The last byte belongs to the signature's s value: still well-formed, no longer a valid signature.
    der[der.length - 1] = (der[der.length - 1] ?? 0) ^ 0x01;
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const answer = await create('forged', { request: Buffer.from(pem).toString('base64') });
    expect(answer.status).toBe(422);
    expect(causes(answer.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.request' }]);
    expect(answer.body.message).toContain('x509: signature verification failure');
  });

  it('takes Approved and Denied only through /approval, exclusive and never removed', async () => {
    await create('approval');
    const viaStatus = await fixture.request(`${CSRS}/approval/status`, { method: 'PATCH', contentType: MERGE, body: { status: { conditions: [approved()] } } });
    expect(viaStatus.status).toBe(422);
    expect(causes(viaStatus.body)).toEqual([{ reason: 'FieldValueForbidden', field: 'status.conditions' }]);
    const viaMain = await fixture.request(`${CSRS}/approval`, { method: 'PATCH', contentType: MERGE, body: { status: { conditions: [approved()] } } });
    expect(viaMain.status).toBe(200);
    expect(viaMain.body.status).toEqual({});

    const both = await fixture.request(`${CSRS}/approval/approval`, { method: 'PATCH', contentType: MERGE, body: { status: { conditions: [approved(), { type: 'Denied', status: 'True' }] } } });
    expect(both.status).toBe(422);
    expect(causes(both.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'status.conditions' }]);

    const ok = await fixture.request(`${CSRS}/approval/approval`, { method: 'PATCH', contentType: MERGE, body: { status: { conditions: [approved()], certificate: Buffer.from(someCertificatePem).toString('base64') } } });
    expect(ok.status).toBe(200);
    expect(ok.body.status.conditions).toEqual([{ ...approved(), lastUpdateTime: expect.any(String), lastTransitionTime: expect.any(String) }]);
    expect(ok.body.status.certificate, 'the certificate is not written through /approval').toBeUndefined();

    const removed = await fixture.request(`${CSRS}/approval/approval`, { method: 'PATCH', contentType: MERGE, body: { status: { conditions: [] } } });
    expect(removed.status).toBe(422);
    expect(causes(removed.body)).toEqual([{ reason: 'FieldValueForbidden', field: 'status.conditions' }]);
  });

  it('takes status.certificate only through /status, once, and only certificates', async () => {
    await create('issued');
    const certificate = Buffer.from(someCertificatePem).toString('base64');
    const viaMain = await fixture.request(`${CSRS}/issued`, { method: 'PATCH', contentType: MERGE, body: { status: { certificate } } });
    expect(viaMain.body.status).toEqual({});
    const notCertificate = await fixture.request(`${CSRS}/issued/status`, { method: 'PATCH', contentType: MERGE, body: { status: { certificate: Buffer.from('nonsense').toString('base64') } } });
    expect(notCertificate.status).toBe(422);
    expect(causes(notCertificate.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'status.certificate' }]);
    const viaStatus = await fixture.request(`${CSRS}/issued/status`, { method: 'PATCH', contentType: MERGE, body: { status: { certificate } } });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.body.status.certificate).toBe(certificate);
    const again = await fixture.request(`${CSRS}/issued/status`, { method: 'PATCH', contentType: MERGE, body: { status: { certificate: Buffer.from(`${someCertificatePem}${someCertificatePem}`).toString('base64') } } });
    expect(again.status).toBe(422);
    expect(causes(again.body)).toEqual([{ reason: 'FieldValueForbidden', field: 'status.certificate' }]);
  });

  it('lists with kubectl columns and deletes', async () => {
    await create('listed', { expirationSeconds: 3600 });
    const table = await fixture.request(`${CSRS}?fieldSelector=metadata.name%3Dlisted`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.body.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(table.body.rows[0].cells.slice(2)).toEqual(['kubernetes.io/kube-apiserver-client', 'system:anonymous', '60m', 'Pending']);
    const deleted = await fixture.request(`${CSRS}/listed`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await fixture.request(`${CSRS}/listed`)).status).toBe(404);
  });
});
