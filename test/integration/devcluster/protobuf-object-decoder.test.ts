import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { UndecodableBody, decodeBody } from '../../../src/apiserver/body-decoder.js';
import { decodeKubernetesProtobuf, PROTOBUF_BODY_DECODER } from '../../../src/devcluster/protobuf-object-decoder.js';
import { bytes, entry, envelope, fixed32, msg, newObjectMeta, str, varint } from './protobuf-test-encoder.js';

/** Bodies recorded from kubectl 1.32.4 (`-v=8` shows the POST; bytes captured by a proxy). */
const KUBECTL_BODIES = {
  'create namespace ns1':
    '6b3873000a0f0a02763112094e616d657370616365121b0a130a036e733112001a0022002a0032003800420012001a020a001a002200',
  'create configmap cm1 --from-literal=a=b --from-literal=k2=v2':
    '6b3873000a0f0a0276311209436f6e6669674d617012270a130a03636d3112001a0022002a0032003800420012060a016112016212080a026b32120276321a002200',
  'create secret generic s1 --from-literal=a=b':
    '6b3873000a0c0a0276311206536563726574121e0a120a02733112001a0022002a0032003800420012060a01611201621a001a002200',
  'create serviceaccount sa1':
    '6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a003200380042001a002200',
  'create service clusterip svc1 --tcp=80:8080':
    '6b3873000a0d0a027631120753657276696365126c0a210a047376633112001a0022002a003200380042005a0b0a0361707012047376633112430a1b0a0738302d38303830120354435018502207080010903f1a002800120b0a036170701204737663311a002209436c757374657249503a00420052005a00600068001a020a001a002200',
} as const;

/** What `kubectl create ... --dry-run=client -o json` sends for the same commands, minus `creationTimestamp: null`. */
const KUBECTL_JSON: Record<keyof typeof KUBECTL_BODIES, unknown> = {
  'create namespace ns1': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {}, status: {} },
  'create configmap cm1 --from-literal=a=b --from-literal=k2=v2': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: 'b', k2: 'v2' } },
  'create secret generic s1 --from-literal=a=b': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { a: Buffer.from('b').toString('base64') } },
  'create serviceaccount sa1': { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } },
  'create service clusterip svc1 --tcp=80:8080': {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc1', labels: { app: 'svc1' } },
    spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' },
    status: { loadBalancer: {} },
  },
};

function failureOf(body: Buffer): ApiError {
  try {
    decodeKubernetesProtobuf(body);
  } catch (error: unknown) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the body to be refused');
}

describe('decodeKubernetesProtobuf', () => {
  describe.each(Object.keys(KUBECTL_BODIES) as (keyof typeof KUBECTL_BODIES)[])('the body of kubectl %s', (command) => {
    it('decodes to the JSON object kubectl would send as JSON', () => {
      expect(decodeKubernetesProtobuf(Buffer.from(KUBECTL_BODIES[command], 'hex'))).toStrictEqual(KUBECTL_JSON[command]);
    });
  });

  it('does not modify its input', () => {
    const body = Buffer.from(KUBECTL_BODIES['create service clusterip svc1 --tcp=80:8080'], 'hex');
    const copy = Buffer.from(body);
    decodeKubernetesProtobuf(body);
    expect(body.equals(copy)).toBe(true);
  });

  it('decodes every ObjectMeta field a client may send', () => {
    const meta = newObjectMeta(
      'web',
      varint(10, 0),
      entry(11, 'app', 'web'),
      entry(11, 'tier', 'front'),
      entry(12, 'note', 'ünïcödé'),
      msg(13, str(1, 'Deployment'), str(3, 'web'), str(4, 'u-1'), str(5, 'apps/v1'), varint(6, true), varint(7, false)),
      str(14, 'example.com/a'),
      str(14, 'example.com/b'),
    );
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', Buffer.concat([meta, varint(4, false)])));
    expect(decoded).toStrictEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'web',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web', tier: 'front' },
        annotations: { note: 'ünïcödé' },
        ownerReferences: [{ kind: 'Deployment', name: 'web', uid: 'u-1', apiVersion: 'apps/v1', controller: true, blockOwnerDeletion: false }],
        finalizers: ['example.com/a', 'example.com/b'],
      },
      immutable: false,
    });
  });

  it('writes timestamps as RFC 3339 and large or negative integers exactly', () => {
    const meta = msg(1, str(1, 'web'), varint(7, 9_007_199_254_740_991n), msg(8, varint(1, 1_700_000_000), varint(2, 5)), msg(9, varint(1, 1_700_000_060)), varint(10, -1));
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', meta));
    expect(decoded['metadata']).toStrictEqual({
      name: 'web',
      generation: 9_007_199_254_740_991,
      creationTimestamp: '2023-11-14T22:13:20Z',
      deletionTimestamp: '2023-11-14T22:14:20Z',
      deletionGracePeriodSeconds: -1,
    });
  });

  it('decodes the CertificateSigningRequest kubectl certificate approve writes back, managedFields included', () => {
    const request = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\n');
    const managed = msg(17, str(1, 'kubectl'), str(2, 'Update'), str(3, 'certificates.k8s.io/v1'), msg(4, varint(1, 1_700_000_000)), str(6, 'FieldsV1'), msg(7, str(1, '{"f:spec":{"f:usages":{}}}')));
    const spec = msg(2, bytes(1, request), str(2, 'admin'), str(3, ''), str(4, 'system:masters'), str(5, 'client auth'), str(7, 'kubernetes.io/kube-apiserver-client'), varint(8, 3600));
    const status = msg(3, msg(1, str(1, 'Approved'), str(2, 'KubectlApprove'), str(3, 'approved'), msg(4, varint(1, 1_700_000_060)), msg(5), str(6, 'True')));
    const decoded = decodeKubernetesProtobuf(envelope('certificates.k8s.io/v1', 'CertificateSigningRequest', Buffer.concat([newObjectMeta('jane', managed), spec, status])));
    expect(decoded).toStrictEqual({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: {
        name: 'jane',
        managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'certificates.k8s.io/v1', time: '2023-11-14T22:13:20Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:usages': {} } } }],
      },
      spec: { request: request.toString('base64'), username: 'admin', groups: ['system:masters'], usages: ['client auth'], signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600 },
      status: { conditions: [{ type: 'Approved', reason: 'KubectlApprove', message: 'approved', lastUpdateTime: '2023-11-14T22:14:20Z', status: 'True' }] },
    });
  });

  it('writes Secret data and ConfigMap binaryData as base64 of the raw bytes', () => {
    const binary = Buffer.from([0x00, 0xff, 0x80, 0x0a]);
    const secret = decodeKubernetesProtobuf(
      envelope('v1', 'Secret', Buffer.concat([newObjectMeta('s'), entry(2, 'bin', binary), entry(2, 'empty', Buffer.alloc(0)), str(3, 'Opaque'), entry(4, 'plain', 'text'), varint(5, true)])),
    );
    expect(secret).toStrictEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { bin: 'AP+ACg==', empty: '' }, type: 'Opaque', stringData: { plain: 'text' }, immutable: true });
    const configMap = decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', Buffer.concat([newObjectMeta('c'), entry(3, 'bin', binary)])));
    expect(configMap['binaryData']).toStrictEqual({ bin: 'AP+ACg==' });
  });

  it('decodes ServiceAccount references and keeps an explicit automount false', () => {
    const decoded = decodeKubernetesProtobuf(
      envelope('v1', 'ServiceAccount', Buffer.concat([newObjectMeta('sa'), msg(2, str(1, 'Secret'), str(3, 'token')), msg(3, str(1, 'registry')), varint(4, false)])),
    );
    expect(decoded).toStrictEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'sa' },
      secrets: [{ kind: 'Secret', name: 'token' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    });
  });

  it('decodes Service ports with named and unset target ports and the pointer fields of the spec', () => {
    const spec = msg(
      2,
      msg(1, str(1, 'http'), str(2, 'TCP'), varint(3, 80), msg(4, varint(1, 1), varint(2, 0), str(3, 'web')), varint(5, 30080), str(6, 'http')),
      msg(1, str(1, 'dns'), str(2, 'UDP'), varint(3, 53), msg(4, varint(1, 0), varint(2, 0), str(3, ''))),
      str(3, 'None'),
      str(4, 'NodePort'),
      str(5, '192.0.2.1'),
      str(7, 'ClientIP'),
      str(11, 'Local'),
      msg(14, msg(1, varint(1, 600))),
      str(17, 'SingleStack'),
      str(18, 'None'),
      str(19, 'IPv4'),
      str(22, 'Cluster'),
    );
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'Service', Buffer.concat([newObjectMeta('web'), spec, msg(3, msg(1, msg(1, str(1, '192.0.2.9'), str(2, ''))))])));
    expect(decoded['spec']).toStrictEqual({
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30080, appProtocol: 'http' },
        { name: 'dns', protocol: 'UDP', port: 53 },
      ],
      clusterIP: 'None',
      type: 'NodePort',
      externalIPs: ['192.0.2.1'],
      sessionAffinity: 'ClientIP',
      externalTrafficPolicy: 'Local',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
      ipFamilyPolicy: 'SingleStack',
      clusterIPs: ['None'],
      ipFamilies: ['IPv4'],
      internalTrafficPolicy: 'Cluster',
    });
    expect(decoded['status']).toStrictEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } });
  });

  it('keeps the namespace finalizers of the spec', () => {
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'Namespace', Buffer.concat([newObjectMeta('team'), msg(2, str(1, 'kubernetes')), msg(3, str(1, 'Active'))])));
    expect(decoded).toStrictEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  });

  describe('refusals', () => {
    const cases: { name: string; body: () => Buffer; reason: string; message: RegExp }[] = [
      {
        name: 'a kind it does not decode',
        body: () => envelope('apps/v1', 'Deployment', newObjectMeta('web')),
        reason: 'UnsupportedMediaType',
        message: /cannot decode a Deployment \(apps\/v1\).*send the object as JSON or YAML/,
      },
      {
        name: 'a known kind of another version',
        body: () => envelope('v2', 'ConfigMap', newObjectMeta('web')),
        reason: 'UnsupportedMediaType',
        message: /ConfigMap \(v2\)/,
      },
      {
        name: 'a field it does not decode (the removed clusterName)',
        body: () => envelope('v1', 'ConfigMap', newObjectMeta('web', str(15, 'east'))),
        reason: 'UnsupportedMediaType',
        message: /field 15 of ObjectMeta \(in metadata\) of a ConfigMap.*JSON or YAML/,
      },
      {
        name: 'a field unknown to the kind',
        body: () => envelope('v1', 'Service', Buffer.concat([newObjectMeta('web'), msg(2, msg(1, str(1, 'http'), varint(9, 1)))])),
        reason: 'UnsupportedMediaType',
        message: /field 9 of ServicePort \(in spec\.ports\) of a Service/,
      },
      {
        name: 'a compressed body',
        body: () => envelope('v1', 'ConfigMap', newObjectMeta('web'), { contentEncoding: 'gzip' }),
        reason: 'UnsupportedMediaType',
        message: /content encoding "gzip"/,
      },
      { name: 'bytes without the k8s prefix', body: () => Buffer.from('{"kind":"ConfigMap"}'), reason: 'BadRequest', message: /prefix "k8s\\0"/ },
      { name: 'an empty body', body: () => Buffer.alloc(0), reason: 'BadRequest', message: /prefix/ },
      { name: 'an envelope without a kind', body: () => Buffer.concat([Buffer.from('k8s\0', 'latin1'), bytes(2, newObjectMeta('web'))]), reason: 'BadRequest', message: /no apiVersion and kind/ },
      {
        name: 'a truncated message',
        body: () => envelope('v1', 'ConfigMap', newObjectMeta('web')).subarray(0, 30),
        reason: 'BadRequest',
        message: /not a valid application\/vnd\.kubernetes\.protobuf object/,
      },
      {
        name: 'a field of the wrong wire type',
        body: () => envelope('v1', 'ConfigMap', msg(1, varint(1, 7))),
        reason: 'BadRequest',
        message: /field metadata\.name has wire type 0/,
      },
      { name: 'an obsolete or fixed wire type', body: () => envelope('v1', 'ConfigMap', msg(1, fixed32(1, 7))), reason: 'BadRequest', message: /wire type 5/ },
      {
        name: 'invalid UTF-8 in a string',
        body: () => envelope('v1', 'ConfigMap', msg(1, bytes(1, Buffer.from([0xc3, 0x28])))),
        reason: 'BadRequest',
        message: /metadata\.name is not valid UTF-8/,
      },
    ];
    it.each(cases)('refuses $name', ({ body, reason, message }) => {
      const failure = failureOf(body());
      expect(failure.reason).toBe(reason);
      expect(failure.code).toBe(reason === 'BadRequest' ? 400 : 415);
      expect(failure.message).toMatch(message);
    });
  });
});

describe('decodeBody with the protobuf decoder', () => {
  const body = Buffer.from(KUBECTL_BODIES['create serviceaccount sa1'], 'hex');

  it('decodes the bodies of POST and PUT', () => {
    expect(decodeBody(PROTOBUF_BODY_DECODER, 'POST', body)).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'sa1' } });
    expect(decodeBody(PROTOBUF_BODY_DECODER, 'PUT', body)).toMatchObject({ kind: 'ServiceAccount' });
  });

  it('leaves the bytes of other methods for the route to refuse', () => {
    expect(decodeBody(PROTOBUF_BODY_DECODER, 'PATCH', body)).toBe(body);
    expect(decodeBody(PROTOBUF_BODY_DECODER, 'DELETE', body)).toBe(body);
  });

  it('keeps a decoding failure for the route instead of throwing', () => {
    const parsed = decodeBody(PROTOBUF_BODY_DECODER, 'POST', Buffer.from('nope'));
    expect(parsed).toBeInstanceOf(UndecodableBody);
    expect((parsed as UndecodableBody).failure.code).toBe(400);
  });
});
