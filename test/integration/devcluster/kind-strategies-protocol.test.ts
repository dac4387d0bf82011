/**
 * The kind strategies of the devcluster, as kube-apiserver v1.36 answers the same requests:
 * generation per kind, immutable ConfigMaps and Secrets, Secret stringData, EndpointSlice and Pod
 * defaults, Service and Endpoints validation, StatefulSet and RBAC rules. Each expectation was read
 * off the real server (the StatefulSet and RBAC ones through test/conformance's cases).
 */
import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const NS = '/api/v1/namespaces/default';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const MERGE = 'application/merge-patch+json';

function post(path: string, body: unknown) {
  return fx.request(path, { method: 'POST', body });
}

function mergePatch(path: string, body: unknown) {
  return fx.request(path, { method: 'PATCH', body, contentType: MERGE });
}

describe('metadata.generation per kind', () => {
  it('is left to the client on kinds whose strategy keeps none (ConfigMap, Service, Endpoints, Secret)', async () => {
    const plain = await post(`${NS}/configmaps`, { metadata: { name: 'gen-plain' }, data: { a: '1' } });
    expect(plain.body.metadata.generation).toBeUndefined();
    const sent = await post(`${NS}/configmaps`, { metadata: { name: 'gen-sent', generation: 5 } });
    expect(sent.body.metadata.generation).toBe(5);
    const updated = await mergePatch(`${NS}/configmaps/gen-sent`, { metadata: { generation: 9, labels: { x: 'y' } }, data: { b: '2' } });
    expect(updated.body.metadata.generation).toBe(5);
    const service = await post(`${NS}/services`, { metadata: { name: 'gen-svc' }, spec: { ports: [{ port: 80 }] } });
    expect(service.body.metadata.generation).toBeUndefined();
    const respec = await mergePatch(`${NS}/services/gen-svc`, { spec: { ports: [{ port: 81 }] } });
    expect(respec.body.metadata.generation).toBeUndefined();
    const secret = await post(`${NS}/secrets`, { metadata: { name: 'gen-secret' } });
    expect(secret.body.metadata.generation).toBeUndefined();
  });

  it('starts a Pod at 1 whatever the client sends, and counts spec changes only', async () => {
    const pod = await post(`${NS}/pods`, { metadata: { name: 'gen-pod', generation: 5 }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    expect(pod.body.metadata.generation).toBe(1);
    expect((await mergePatch(`${NS}/pods/gen-pod`, { metadata: { labels: { a: 'b' } } })).body.metadata.generation).toBe(1);
    expect((await mergePatch(`${NS}/pods/gen-pod`, { spec: { activeDeadlineSeconds: 5 } })).body.metadata.generation).toBe(2);
    expect((await mergePatch(`${NS}/pods/gen-pod/status`, { status: { message: 'hi' } })).body.metadata.generation).toBe(2);
  });

  it('counts EndpointSlice label changes too, not annotation changes', async () => {
    const slice = await post(SLICES, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'gen-slice', generation: 5 }, addressType: 'IPv4', endpoints: [] });
    expect(slice.body.metadata.generation).toBe(1);
    expect((await mergePatch(`${SLICES}/gen-slice`, { metadata: { labels: { a: 'b' } } })).body.metadata.generation).toBe(2);
    expect((await mergePatch(`${SLICES}/gen-slice`, { endpoints: [{ addresses: ['10.1.1.1'] }] })).body.metadata.generation).toBe(3);
    expect((await mergePatch(`${SLICES}/gen-slice`, { metadata: { annotations: { a: 'b' } } })).body.metadata.generation).toBe(3);
  });
});

describe('status writes', () => {
  it('take the labels and annotations they are sent and leave the spec; a Pod status write keeps its owner references', async () => {
    // An owner that exists, or the garbage collector deletes the Pod.
    const ownerMap = await post(`${NS}/configmaps`, { metadata: { name: 'status-pod-owner' } });
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'status-pod-owner', uid: ownerMap.body.metadata.uid as string };
    expect((await post(`${NS}/pods`, { metadata: { name: 'status-pod', ownerReferences: [owner] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status).toBe(201);
    const written = await mergePatch(`${NS}/pods/status-pod/status`, {
      metadata: { labels: { written: 'through-status' }, annotations: { note: 'status' }, ownerReferences: null },
      spec: { activeDeadlineSeconds: 5 },
      status: { message: 'hi' },
    });
    expect(written.status).toBe(200);
    expect(written.body.metadata).toMatchObject({ labels: { written: 'through-status' }, annotations: { note: 'status' }, ownerReferences: [owner] });
    expect(written.body.spec.activeDeadlineSeconds).toBeUndefined();
    expect(written.body.status.message).toBe('hi');
    const tracked = (written.body.metadata.managedFields as Array<{ subresource?: string; fieldsV1: { 'f:metadata'?: unknown } }>).find((entry) => entry.subresource === 'status');
    expect(tracked?.fieldsV1['f:metadata']).toEqual({ 'f:annotations': { '.': {}, 'f:note': {} }, 'f:labels': { '.': {}, 'f:written': {} } });
  });

  it('hold the metadata they write to the limits of any write: annotations past 256 KiB are Invalid and change nothing', async () => {
    expect((await post(`${NS}/pods`, { metadata: { name: 'status-big' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status).toBe(201);
    const refused = await mergePatch(`${NS}/pods/status-big/status`, { metadata: { annotations: { big: 'x'.repeat(256 * 1024) } }, status: { message: 'hi' } });
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toEqual([expect.objectContaining({ field: 'metadata.annotations', reason: 'FieldValueTooLong' })]);
    const stored = await fx.request(`${NS}/pods/status-big`);
    expect(stored.body.metadata.annotations).toBeUndefined();
    expect(stored.body.status.message).toBeUndefined();
  });
});

describe('immutable ConfigMaps and Secrets', () => {
  it('refuses changes to an immutable ConfigMap data, binaryData and flag, and allows metadata changes', async () => {
    await post(`${NS}/configmaps`, { metadata: { name: 'frozen' }, data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true });
    const data = await mergePatch(`${NS}/configmaps/frozen`, { data: { a: '2' } });
    expect(data.status).toBe(422);
    expect(data.body).toMatchObject({
      reason: 'Invalid',
      message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      details: { kind: 'ConfigMap', name: 'frozen', causes: [{ reason: 'FieldValueForbidden', field: 'data' }] },
    });
    const all = await mergePatch(`${NS}/configmaps/frozen`, { data: { a: '2' }, binaryData: { b: 'AQ==' }, immutable: false });
    expect(all.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['immutable', 'data', 'binaryData']);
    const relabel = await mergePatch(`${NS}/configmaps/frozen`, { metadata: { labels: { a: 'b' } } });
    expect(relabel.status).toBe(200);
    const thaw = await mergePatch(`${NS}/configmaps/frozen`, { immutable: null });
    expect(thaw.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'immutable', message: 'Forbidden: field is immutable when `immutable` is set' }]);
  });

  it('lets a mutable ConfigMap become immutable in the same write that changes its data', async () => {
    await post(`${NS}/configmaps`, { metadata: { name: 'freezing' }, data: { a: '1' } });
    const frozen = await mergePatch(`${NS}/configmaps/freezing`, { immutable: true, data: { a: '3' } });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({ immutable: true, data: { a: '3' } });
  });

  it('refuses changes to an immutable Secret data (stringData included) and to any Secret type', async () => {
    await post(`${NS}/secrets`, { metadata: { name: 'frozen' }, data: { a: 'MQ==' }, immutable: true });
    const both = await mergePatch(`${NS}/secrets/frozen`, { data: { a: 'Mg==' }, immutable: false });
    expect(both.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['immutable', 'data']);
    const viaStringData = await mergePatch(`${NS}/secrets/frozen`, { stringData: { a: '2' } });
    expect(viaStringData.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' }]);
    const retyped = await mergePatch(`${NS}/secrets/frozen`, { type: 'Other' });
    expect(retyped.body.message).toBe('Secret "frozen" is invalid: type: Invalid value: "Other": field is immutable');
  });
});

describe('Secret stringData', () => {
  it('is merged base64-encoded into data (winning over the same key) and never stored', async () => {
    const created = await post(`${NS}/secrets`, { metadata: { name: 'string-data' }, data: { k: 'eA==', j: 'eQ==' }, stringData: { k: 'v' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ j: 'eQ==', k: 'dg==' });
    expect(created.body.stringData).toBeUndefined();
    const patched = await mergePatch(`${NS}/secrets/string-data`, { stringData: { z: 'w' } });
    expect(patched.body.data).toEqual({ j: 'eQ==', k: 'dg==', z: 'dw==' });
    expect(patched.body.stringData).toBeUndefined();
    expect((await fx.request(`${NS}/secrets/string-data`)).body.stringData).toBeUndefined();
  });
});

describe('Endpoints validation', () => {
  const endpointsWith = (name: string, subsets: unknown[]) => post(`${NS}/endpoints`, { metadata: { name }, subsets });
  const fieldsAndMessages = (body: { details?: { causes?: { field: string; message: string }[] } }) => body.details?.causes?.map((cause) => [cause.field, cause.message]);
  const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const SUBDOMAIN =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

  it.each([
    ['a loopback address', [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }], [['subsets[0].addresses[0].ip', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']]],
    [
      'a non-IP address (twice: not an IP, and not an endpoint IP)',
      [{ addresses: [{ ip: 'not-an-ip' }], ports: [{ port: 80 }] }],
      [
        ['subsets[0].addresses[0].ip', 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
        ['subsets[0].addresses[0].ip', 'Invalid value: "not-an-ip": must be a valid IP address'],
      ],
    ],
    ['an invalid hostname', [{ addresses: [{ ip: '10.1.2.3', hostname: 'Bad_Host' }], ports: [{ port: 80 }] }], [['subsets[0].addresses[0].hostname', `Invalid value: "Bad_Host": ${LABEL}`]]],
    [
      'two ports without names',
      [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }, { port: 81 }] }],
      [
        ['subsets[0].ports[0].name', 'Required value'],
        ['subsets[0].ports[1].name', 'Required value'],
      ],
    ],
    [
      'addresses no endpoint may have',
      [{ addresses: ['0.0.0.0', '169.254.1.1', '224.0.0.5', '::1', 'fe80::1', 'ff02::1', '239.1.1.1', '010.1.2.3', '::ffff:10.1.2.3'].map((ip) => ({ ip })), ports: [{ port: 80 }] }],
      [
        ['subsets[0].addresses[0].ip', 'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)'],
        ['subsets[0].addresses[1].ip', 'Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
        ['subsets[0].addresses[2].ip', 'Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
        ['subsets[0].addresses[3].ip', 'Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
        ['subsets[0].addresses[4].ip', 'Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
        ['subsets[0].addresses[5].ip', 'Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
        ['subsets[0].addresses[7].ip', 'Invalid value: "010.1.2.3": must not have leading 0s'],
        ['subsets[0].addresses[8].ip', 'Invalid value: "::ffff:10.1.2.3": must not be an IPv4-mapped IPv6 address'],
      ],
    ],
    ['a subset without addresses', [{ ports: [{ port: 80 }] }], [['subsets[0]', 'Required value: must specify `addresses` or `notReadyAddresses`']]],
    [
      'node name, port name, protocol and appProtocol',
      [{ addresses: [{ ip: '10.1.2.3', nodeName: 'Bad_Node' }], ports: [{ port: 80, name: 'Bad' }, { port: 81, name: 'b', protocol: 'FOO', appProtocol: 'bad app' }] }],
      [
        ['subsets[0].addresses[0].nodeName', `Invalid value: "Bad_Node": ${SUBDOMAIN}`],
        ['subsets[0].ports[0].name', `Invalid value: "Bad": ${LABEL}`],
        ['subsets[0].ports[1].protocol', 'Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"'],
        [
          'subsets[0].ports[1].appProtocol',
          `Invalid value: "bad app": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        ],
      ],
    ],
    [
      'not-ready addresses and port numbers (duplicate names allowed)',
      [{ notReadyAddresses: [{ ip: '127.0.0.2' }], ports: [{ port: 70000, name: 'a' }, { port: 0, name: 'a' }] }],
      [
        ['subsets[0].notReadyAddresses[0].ip', 'Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
        ['subsets[0].ports[0].port', 'Invalid value: 70000: must be between 1 and 65535, inclusive'],
        ['subsets[0].ports[1].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
      ],
    ],
  ])('refuses %s as Invalid', async (_, subsets, expected) => {
    const answer = await endpointsWith('refused', subsets);
    expect(answer.status).toBe(422);
    expect(fieldsAndMessages(answer.body)).toEqual(expected);
  });

  it('accepts valid addresses, hostnames, node names and a single unnamed port', async () => {
    const answer = await endpointsWith('valid', [{ addresses: [{ ip: '10.1.2.3', hostname: 'ok', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'x' } }, { ip: '2001:db8::1' }], notReadyAddresses: [{ ip: '10.1.2.4' }], ports: [{ port: 80 }] }]);
    expect(answer.status).toBe(201);
    expect(answer.body.subsets[0].ports).toEqual([{ port: 80, protocol: 'TCP' }]);
  });
});

describe('EndpointSlices', () => {
  const slice = (name: string, extra: Record<string, unknown>) => post(SLICES, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name }, addressType: 'IPv4', ...extra });

  it('defaults endpoint conditions, port names and protocols, and absent lists to null', async () => {
    const created = await slice('defaults', {
      endpoints: [{ addresses: ['10.1.2.3'] }, { addresses: ['10.1.2.4'], conditions: { ready: false }, nodeName: 'n' }],
      ports: [{ name: 'http', port: 80 }, { port: 81, protocol: 'UDP' }],
    });
    expect(created.status).toBe(201);
    expect(created.body.endpoints).toEqual([{ addresses: ['10.1.2.3'], conditions: {} }, { addresses: ['10.1.2.4'], conditions: { ready: false }, nodeName: 'n' }]);
    expect(created.body.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }, { name: '', port: 81, protocol: 'UDP' }]);
    const bare = await slice('bare', {});
    expect(bare.body).toMatchObject({ endpoints: null, ports: null });
  });

  it('refuses addresses an endpoint may not have, and duplicate port names', async () => {
    const answer = await slice('refused', { endpoints: [{ addresses: ['127.0.0.1'] }, { addresses: ['nope'] }], ports: [{ port: 80 }, { port: 81 }] });
    expect(answer.status).toBe(422);
    expect(answer.body.details.causes.map((cause: { field: string; message: string }) => [cause.field, cause.message])).toEqual([
      ['endpoints[0].addresses[0]', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['endpoints[1].addresses[0]', 'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      ['ports[1].name', 'Duplicate value: ""'],
    ]);
  });
});

describe('the bootstrap default/kubernetes Endpoints', () => {
  it('publishes no address while the server listens on loopback, which Endpoints validation refuses', async () => {
    const answer = await fx.request(`${NS}/endpoints/kubernetes`);
    expect(answer.status).toBe(200);
    expect(answer.body.subsets).toBeUndefined();
    expect((await mergePatch(`${NS}/endpoints/kubernetes`, { metadata: { labels: { touched: 'yes' } } })).status).toBe(200);
  });
});

describe('Service cluster IPs, IP families and ExternalName', () => {
  const service = (name: string, spec: Record<string, unknown>) => post(`${NS}/services`, { metadata: { name }, spec });
  const causes = (body: { details?: { causes?: unknown[] } }) => body.details?.causes;

  it('names spec.clusterIPs[0] when a cluster IP would change, and spec.clusterIPs when clusterIPs disagrees with it', async () => {
    // An address outside the range is never the one just allocated, which would make the writes no-ops.
    const created = await service('fixed-ip', { ports: [{ name: 'http', port: 80 }] });
    const changed = await mergePatch(`${NS}/services/fixed-ip`, { spec: { clusterIP: '192.168.0.200' } });
    expect(changed.status).toBe(422);
    expect(causes(changed.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: 'Invalid value: ["192.168.0.200"]: may not change once set' }]);
    const listed = await mergePatch(`${NS}/services/fixed-ip`, { spec: { clusterIPs: ['192.168.0.200'] } });
    expect(causes(listed.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: ["192.168.0.200"]: first value must match `clusterIP`' }]);
    const cleared = await mergePatch(`${NS}/services/fixed-ip`, { spec: { clusterIP: '', clusterIPs: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.spec).toMatchObject({ clusterIP: created.body.spec.clusterIP, clusterIPs: [created.body.spec.clusterIP] });
  });

  it('names spec.clusterIPs when a requested cluster IP is outside the range or taken, spec.clusterIPs[0] when it is no IP', async () => {
    const outside = await service('outside', { clusterIP: '192.168.99.1', ports: [{ port: 80 }] });
    expect(causes(outside.body)).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: ["192.168.99.1"]: failed to allocate IP 192.168.99.1: the provided network does not match the current range' },
    ]);
    const taken = await service('taken', { clusterIP: '10.96.0.1', ports: [{ port: 80 }] });
    expect(causes(taken.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: 'Invalid value: ["10.96.0.1"]: failed to allocate IP 10.96.0.1: provided IP is already allocated' }]);
    const nonsense = await service('nonsense', { clusterIP: 'nope', ports: [{ port: 80 }] });
    expect(causes(nonsense.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', message: 'Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' }]);
  });

  let headlessCount = 0;
  it.each([
    ['without selector: RequireDualStack, both families', { clusterIP: 'None' }, ['IPv4', 'IPv6'], 'RequireDualStack'],
    ['without selector, IPv6 asked first', { clusterIP: 'None', ipFamilies: ['IPv6'] }, ['IPv6', 'IPv4'], 'RequireDualStack'],
    ['without selector, SingleStack asked', { clusterIP: 'None', ipFamilyPolicy: 'SingleStack' }, ['IPv4'], 'SingleStack'],
    ['without selector, PreferDualStack asked', { clusterIP: 'None', ipFamilyPolicy: 'PreferDualStack' }, ['IPv4', 'IPv6'], 'PreferDualStack'],
    ['with a selector: SingleStack IPv4', { clusterIP: 'None', selector: { a: 'b' } }, ['IPv4'], 'SingleStack'],
  ])('defaults the IP families of a headless Service %s', async (_, spec, families, policy) => {
    const created = await service(`headless-${(headlessCount += 1)}`, spec);
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilies: families, ipFamilyPolicy: policy, internalTrafficPolicy: 'Cluster' });
  });

  it('requires an ExternalName Service to name a DNS subdomain (a trailing dot allowed)', async () => {
    const missing = await service('no-name', { type: 'ExternalName' });
    expect(missing.status).toBe(422);
    expect(causes(missing.body)).toEqual([{ reason: 'FieldValueRequired', field: 'spec.externalName', message: 'Required value' }]);
    const bad = await service('bad-name', { type: 'ExternalName', externalName: 'Bad_Name' });
    expect(causes(bad.body)).toMatchObject([{ reason: 'FieldValueInvalid', field: 'spec.externalName' }]);
    const dotted = await service('dotted-name', { type: 'ExternalName', externalName: 'example.com.' });
    expect(dotted.status).toBe(201);
    expect(dotted.body.spec).toEqual({ type: 'ExternalName', sessionAffinity: 'None', externalName: 'example.com.' });
  });
});

describe('Pod defaults', () => {
  const TOLERATIONS = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  const CONTAINER_DEFAULTS = { resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
  const POD_DEFAULTS = {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: TOLERATIONS,
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  };

  it('gives a minimal Pod what the real server gives it', async () => {
    const created = await post(`${NS}/pods`, { metadata: { name: 'minimal' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual({ containers: [{ name: 'c', image: 'busybox', ...CONTAINER_DEFAULTS, imagePullPolicy: 'Always' }], ...POD_DEFAULTS });
    expect(created.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('defaults init containers, ports on the host network, field references and volume modes', async () => {
    const digest = `busybox@sha256:${'a'.repeat(64)}`;
    const created = await post(`${NS}/pods`, {
      metadata: { name: 'detailed' },
      spec: {
        initContainers: [{ name: 'i', image: 'busybox:1.36' }],
        containers: [{ name: 'c', image: digest, ports: [{ containerPort: 80 }], resources: { requests: { cpu: '1' } }, env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }],
        volumes: [{ name: 'v', emptyDir: {} }, { name: 's', secret: { secretName: 'x' } }, { name: 'cm', configMap: { name: 'y' } }],
        hostNetwork: true,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual({
      volumes: [{ name: 'v', emptyDir: {} }, { name: 's', secret: { secretName: 'x', defaultMode: 420 } }, { name: 'cm', configMap: { name: 'y', defaultMode: 420 } }],
      initContainers: [{ name: 'i', image: 'busybox:1.36', ...CONTAINER_DEFAULTS, imagePullPolicy: 'IfNotPresent' }],
      containers: [
        {
          name: 'c',
          image: digest,
          ports: [{ hostPort: 80, containerPort: 80, protocol: 'TCP' }],
          env: [{ name: 'A', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
          ...CONTAINER_DEFAULTS,
          resources: { requests: { cpu: '1' } },
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      hostNetwork: true,
      ...POD_DEFAULTS,
    });
    expect(created.body.status).toEqual({ phase: 'Pending', qosClass: 'Burstable' });
  });
});

describe('ConfigMap and Secret keys', () => {
  const KEY_MESSAGE =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
  const fieldsAndMessages = (body: { details?: { causes?: { field: string; message: string }[] } }) => body.details?.causes?.map((cause) => [cause.field, cause.message]);

  it('refuses ConfigMap keys that cannot be file names, and a key in both data and binaryData', async () => {
    const bad = await post(`${NS}/configmaps`, { metadata: { name: 'bad-keys' }, data: { 'bad key': '1', '..a': '2' }, binaryData: { '..': 'AA==' } });
    expect(bad.status).toBe(422);
    expect(fieldsAndMessages(bad.body)).toEqual([
      ['data[bad key]', `Invalid value: "bad key": ${KEY_MESSAGE}`],
      ['data[..a]', `Invalid value: "..a": must not start with '..'`],
      ['binaryData[..]', `Invalid value: "..": must not be '..'`],
    ]);
    const twice = await post(`${NS}/configmaps`, { metadata: { name: 'twice' }, data: { a: 'x', '.': 'y' }, binaryData: { a: 'AA==' } });
    expect(fieldsAndMessages(twice.body)).toEqual([
      ['data[a]', 'Invalid value: "a": duplicate of key present in binaryData'],
      ['data[.]', `Invalid value: ".": must not be '.'`],
    ]);
  });

  it('refuses Secret keys that cannot be file names, stringData keys included', async () => {
    const bad = await post(`${NS}/secrets`, { metadata: { name: 'bad-keys' }, data: { 'bad key': 'MQ==' }, stringData: { 'b/c': 'x' } });
    expect(fieldsAndMessages(bad.body)).toEqual([
      ['data[bad key]', `Invalid value: "bad key": ${KEY_MESSAGE}`],
      ['data[b/c]', `Invalid value: "b/c": ${KEY_MESSAGE}`],
    ]);
  });

  it.each([
    ['kubernetes.io/tls', {}, ['data[tls.crt]', 'data[tls.key]']],
    ['kubernetes.io/dockerconfigjson', {}, ['data[.dockerconfigjson]']],
    ['kubernetes.io/dockercfg', {}, ['data[.dockercfg]']],
    ['kubernetes.io/basic-auth', {}, ['data[username]', 'data[password]']],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }, ['data[ssh-privatekey]']],
    ['kubernetes.io/service-account-token', {}, ['metadata.annotations[kubernetes.io/service-account.name]']],
  ])('requires the keys of a %s Secret', async (type, data, fields) => {
    const refused = await post(`${NS}/secrets`, { metadata: { name: `typed-${type.replace(/[^a-z]/g, '')}` }, type, data });
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toEqual(fields.map((field) => ({ reason: 'FieldValueRequired', field, message: 'Required value' })));
  });

  it('accepts a basic-auth Secret with only one of username and password', async () => {
    expect((await post(`${NS}/secrets`, { metadata: { name: 'basic' }, type: 'kubernetes.io/basic-auth', data: { username: '' } })).status).toBe(201);
  });
});

/** The fields an Invalid Status names, in order. */
const fields = (body: { details?: { causes?: { field: string }[] } }) => body.details?.causes?.map((cause) => cause.field);

describe('StatefulSets (stored; no controller acts on them)', () => {
  const SETS = '/apis/apps/v1/namespaces/default/statefulsets';
  const set = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: { serviceName: 's', selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } }, ...spec },
  });

  it('defaults the spec and its Pod template, empties the status and starts generation at 1', async () => {
    const created = await post(SETS, { ...set('sts-defaults'), status: { replicas: 3 } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.generation).toBe(1);
    expect(created.body.status).toEqual({ replicas: 0, availableReplicas: 0 });
    expect(created.body.spec).toMatchObject({ replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    expect(created.body.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
    expect(created.body.spec.template.spec.tolerations).toBeUndefined();
  });

  it('requires a selector that matches the template labels', async () => {
    expect(fields((await post(SETS, set('sts-nosel', { selector: undefined }))).body)).toEqual(['spec.selector', 'spec.template.metadata.labels']);
    expect(fields((await post(SETS, set('sts-empty', { selector: {} }))).body)).toEqual(['spec.selector']);
    const other = await post(SETS, set('sts-other', { selector: { matchLabels: { app: 'b' } } }));
    expect([other.status, fields(other.body)]).toEqual([422, ['spec.template.metadata.labels']]);
  });

  it('lets an update change replicas and the template, not the selector nor the serviceName; spec changes count in generation', async () => {
    await post(SETS, set('sts-update'));
    const scaled = await mergePatch(`${SETS}/sts-update`, { spec: { replicas: 3, template: { metadata: { annotations: { rev: '2' } } } } });
    expect([scaled.status, scaled.body.metadata.generation, scaled.body.spec.replicas]).toEqual([200, 2, 3]);
    for (const spec of [{ serviceName: 'other' }, { selector: { matchLabels: { app: 'a', x: 'y' } }, template: { metadata: { labels: { x: 'y' } } } }]) {
      const refused = await mergePatch(`${SETS}/sts-update`, { spec });
      expect([refused.status, fields(refused.body)]).toEqual([422, ['spec']]);
    }
    const status = await mergePatch(`${SETS}/sts-update/status`, { spec: { replicas: 9 }, status: { replicas: 3 } });
    expect([status.body.metadata.generation, status.body.spec.replicas, status.body.status.replicas]).toEqual([2, 3, 3]);
  });
});

describe('RBAC objects (stored; the authorizer does not read them)', () => {
  const RBAC = '/apis/rbac.authorization.k8s.io/v1';
  const binding = (name: string, roleRef: unknown) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef, subjects: [{ kind: 'User', name: 'alice' }] });

  it('defaults the API group of roleRef and User subjects, and refuses a change of roleRef', async () => {
    const created = await post(`${RBAC}/namespaces/default/rolebindings`, binding('rb-immutable', { kind: 'Role', name: 'r' }));
    expect([created.status, created.body.roleRef, created.body.subjects]).toEqual([201, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }]]);
    const changed = await mergePatch(`${RBAC}/namespaces/default/rolebindings/rb-immutable`, { roleRef: { name: 'other' } });
    expect([changed.status, fields(changed.body)]).toEqual([422, ['roleRef']]);
  });

  it('requires roleRef, and a ClusterRoleBinding to name a ClusterRole and its ServiceAccounts a namespace', async () => {
    const missing = await post(`${RBAC}/namespaces/default/rolebindings`, binding('rb-missing', undefined));
    expect(fields(missing.body)).toEqual(['roleRef.kind', 'roleRef.name']);
    const cluster = await post(`${RBAC}/clusterrolebindings`, { ...binding('crb-role', { kind: 'Role', name: 'r' }), kind: 'ClusterRoleBinding', subjects: [{ kind: 'ServiceAccount', name: 'sa' }] });
    expect(fields(cluster.body)).toEqual(['roleRef.kind', 'subjects[0].namespace']);
  });

  it('requires every rule of a Role to name verbs, API groups and resources, and no non-resource URL', async () => {
    const role = await post(`${RBAC}/namespaces/default/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r-rules' }, rules: [{}, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    expect(fields(role.body)).toEqual(['rules[0].verbs', 'rules[0].apiGroups', 'rules[0].resources', 'rules[1].nonResourceURLs']);
  });
});
