/**
 * The protobuf field tables of the kinds that kubectl's generator commands send
 * (`kubectl create namespace|configmap|secret|serviceaccount|service`) and of the
 * CertificateSigningRequest `kubectl certificate approve|deny` writes back, as declared in
 * `k8s.io/api/core/v1/generated.proto` and `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`.
 * Only these messages are described; any other field number is reported, never skipped.
 */

import { message, type MessageSchema, OBJECT_META, SELF_REVIEW_PROTOBUF_KINDS, SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND } from '../apiserver/index.js';

const OBJECT_REFERENCE = message('ObjectReference', {
  1: { json: 'kind', type: 'string' },
  2: { json: 'namespace', type: 'string' },
  3: { json: 'name', type: 'string' },
  4: { json: 'uid', type: 'string' },
  5: { json: 'apiVersion', type: 'string' },
  6: { json: 'resourceVersion', type: 'string' },
  7: { json: 'fieldPath', type: 'string' },
});

const LOCAL_OBJECT_REFERENCE = message('LocalObjectReference', {
  1: { json: 'name', type: 'string' },
});

const CONFIG_MAP = message('ConfigMap', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'data', type: 'string-map' },
  3: { json: 'binaryData', type: 'bytes-map' },
  4: { json: 'immutable', type: 'bool', pointer: true },
});

const SECRET = message('Secret', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'data', type: 'bytes-map' },
  3: { json: 'type', type: 'string' },
  4: { json: 'stringData', type: 'string-map' },
  5: { json: 'immutable', type: 'bool', pointer: true },
});

/** Namespace status without `conditions` (2), which only the namespace controller writes. */
const NAMESPACE = message('Namespace', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'spec', type: message('NamespaceSpec', { 1: { json: 'finalizers', type: 'string', repeated: true } }) },
  3: { json: 'status', type: message('NamespaceStatus', { 1: { json: 'phase', type: 'string' } }) },
});

const SERVICE_ACCOUNT = message('ServiceAccount', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'secrets', type: OBJECT_REFERENCE, repeated: true },
  3: { json: 'imagePullSecrets', type: LOCAL_OBJECT_REFERENCE, repeated: true },
  4: { json: 'automountServiceAccountToken', type: 'bool', pointer: true },
});

const SERVICE_PORT = message('ServicePort', {
  1: { json: 'name', type: 'string' },
  2: { json: 'protocol', type: 'string' },
  3: { json: 'port', type: 'int32' },
  4: { json: 'targetPort', type: 'int-or-string' },
  5: { json: 'nodePort', type: 'int32' },
  6: { json: 'appProtocol', type: 'string', pointer: true },
});

const SESSION_AFFINITY_CONFIG = message('SessionAffinityConfig', {
  1: { json: 'clientIP', type: message('ClientIPConfig', { 1: { json: 'timeoutSeconds', type: 'int32', pointer: true } }) },
});

const SERVICE_SPEC = message('ServiceSpec', {
  1: { json: 'ports', type: SERVICE_PORT, repeated: true },
  2: { json: 'selector', type: 'string-map' },
  3: { json: 'clusterIP', type: 'string' },
  4: { json: 'type', type: 'string' },
  5: { json: 'externalIPs', type: 'string', repeated: true },
  7: { json: 'sessionAffinity', type: 'string' },
  8: { json: 'loadBalancerIP', type: 'string' },
  9: { json: 'loadBalancerSourceRanges', type: 'string', repeated: true },
  10: { json: 'externalName', type: 'string' },
  11: { json: 'externalTrafficPolicy', type: 'string' },
  12: { json: 'healthCheckNodePort', type: 'int32' },
  13: { json: 'publishNotReadyAddresses', type: 'bool' },
  14: { json: 'sessionAffinityConfig', type: SESSION_AFFINITY_CONFIG },
  17: { json: 'ipFamilyPolicy', type: 'string', pointer: true },
  18: { json: 'clusterIPs', type: 'string', repeated: true },
  19: { json: 'ipFamilies', type: 'string', repeated: true },
  20: { json: 'allocateLoadBalancerNodePorts', type: 'bool', pointer: true },
  21: { json: 'loadBalancerClass', type: 'string', pointer: true },
  22: { json: 'internalTrafficPolicy', type: 'string', pointer: true },
  23: { json: 'trafficDistribution', type: 'string', pointer: true },
});

/** Service status without `conditions` (2) and load-balancer ingress `ports` (4): controller-written. */
const SERVICE_STATUS = message('ServiceStatus', {
  1: {
    json: 'loadBalancer',
    type: message('LoadBalancerStatus', {
      1: {
        json: 'ingress',
        repeated: true,
        type: message('LoadBalancerIngress', {
          1: { json: 'ip', type: 'string' },
          2: { json: 'hostname', type: 'string' },
          3: { json: 'ipMode', type: 'string', pointer: true },
        }),
      },
    }),
  },
});

const SERVICE = message('Service', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'spec', type: SERVICE_SPEC },
  3: { json: 'status', type: SERVICE_STATUS },
});

/** CertificateSigningRequestSpec without `extra` (6): a map of string lists, set only for users with extra attributes. */
const CERTIFICATE_SIGNING_REQUEST_SPEC = message('CertificateSigningRequestSpec', {
  1: { json: 'request', type: 'bytes' },
  2: { json: 'username', type: 'string' },
  3: { json: 'uid', type: 'string' },
  4: { json: 'groups', type: 'string', repeated: true },
  5: { json: 'usages', type: 'string', repeated: true },
  7: { json: 'signerName', type: 'string' },
  8: { json: 'expirationSeconds', type: 'int32', pointer: true },
});

const CERTIFICATE_SIGNING_REQUEST_STATUS = message('CertificateSigningRequestStatus', {
  1: {
    json: 'conditions',
    repeated: true,
    type: message('CertificateSigningRequestCondition', {
      1: { json: 'type', type: 'string' },
      2: { json: 'reason', type: 'string' },
      3: { json: 'message', type: 'string' },
      4: { json: 'lastUpdateTime', type: 'time' },
      5: { json: 'lastTransitionTime', type: 'time' },
      6: { json: 'status', type: 'string' },
    }),
  },
  2: { json: 'certificate', type: 'bytes' },
});

const CERTIFICATE_SIGNING_REQUEST = message('CertificateSigningRequest', {
  1: { json: 'metadata', type: OBJECT_META },
  2: { json: 'spec', type: CERTIFICATE_SIGNING_REQUEST_SPEC },
  3: { json: 'status', type: CERTIFICATE_SIGNING_REQUEST_STATUS },
});

/**
 * The top-level messages the devcluster decodes, by `<apiVersion>/<kind>` of the envelope: the
 * generators' kinds and the core's self reviews (`kubectl auth can-i` sends protobuf).
 */
export const PROTOBUF_KINDS: ReadonlyMap<string, MessageSchema> = new Map([
  ...SELF_REVIEW_PROTOBUF_KINDS,
  SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND,
  ['v1/ConfigMap', CONFIG_MAP],
  ['v1/Namespace', NAMESPACE],
  ['v1/Secret', SECRET],
  ['v1/Service', SERVICE],
  ['v1/ServiceAccount', SERVICE_ACCOUNT],
  ['certificates.k8s.io/v1/CertificateSigningRequest', CERTIFICATE_SIGNING_REQUEST],
]);
