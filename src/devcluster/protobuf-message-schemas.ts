/**
 * The protobuf field tables of the kinds that kubectl's generator commands send
 * (`kubectl create namespace|configmap|secret|serviceaccount|service`) and of the
 * CertificateSigningRequest `kubectl certificate approve|deny` writes back, as declared in
 * `k8s.io/api/core/v1/generated.proto`, `k8s.io/api/certificates/v1/generated.proto` and
 * `k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto`.
 * Only these messages are described; any other field number is reported, never skipped.
 */

/** How one field's wire value becomes JSON. */
export type FieldType =
  /** A UTF-8 string. */
  | 'string'
  /** Raw bytes, base64 in JSON (as Go's `[]byte`). */
  | 'bytes'
  | 'bool'
  /** A varint read as a signed 32-bit integer. */
  | 'int32'
  /** A varint read as a signed 64-bit integer (a JSON number; exact up to 2^53). */
  | 'int64'
  /** meta/v1 Time `{seconds 1, nanos 2}`, RFC 3339 in JSON with seconds precision. */
  | 'time'
  /** util/intstr IntOrString `{type 1, intVal 2, strVal 3}`, a number or a string in JSON. */
  | 'int-or-string'
  /** `map<string,string>`: entries `{key 1, value 2}`. */
  | 'string-map'
  /** `map<string,bytes>`: entries `{key 1, value 2}`, values base64 in JSON. */
  | 'bytes-map'
  /** meta/v1 FieldsV1 `{Raw 1}`: JSON text, embedded as the JSON value it holds. */
  | 'fields-v1'
  | MessageSchema;

/** One field of a message. */
export interface FieldSchema {
  /** The JSON field name. */
  readonly json: string;
  readonly type: FieldType;
  /** `repeated`: every occurrence is one element of a JSON array. */
  readonly repeated?: true;
  /**
   * The Go field is a pointer (`*bool`, `*string`, `*int32`): the encoder writes it only when set,
   * so a zero value on the wire is kept. Plain fields are always written, and a zero value
   * (`""`, `0`, `false`) is dropped, as Go's `omitempty` JSON encoding does.
   */
  readonly pointer?: true;
}

/** A protobuf message: its name (for error messages) and its fields by number. */
export interface MessageSchema {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldSchema>;
}

function message(name: string, fields: Record<number, FieldSchema>): MessageSchema {
  return Object.freeze({ name, fields: new Map(Object.entries(fields).map(([number, field]) => [Number(number), Object.freeze(field)])) });
}

const OWNER_REFERENCE = message('OwnerReference', {
  1: { json: 'kind', type: 'string' },
  3: { json: 'name', type: 'string' },
  4: { json: 'uid', type: 'string' },
  5: { json: 'apiVersion', type: 'string' },
  6: { json: 'controller', type: 'bool', pointer: true },
  7: { json: 'blockOwnerDeletion', type: 'bool', pointer: true },
});

const MANAGED_FIELDS_ENTRY = message('ManagedFieldsEntry', {
  1: { json: 'manager', type: 'string' },
  2: { json: 'operation', type: 'string' },
  3: { json: 'apiVersion', type: 'string' },
  4: { json: 'time', type: 'time' },
  6: { json: 'fieldsType', type: 'string' },
  7: { json: 'fieldsV1', type: 'fields-v1' },
  8: { json: 'subresource', type: 'string' },
});

/** meta/v1 ObjectMeta: what generators send, and the managedFields of objects written back. */
const OBJECT_META = message('ObjectMeta', {
  1: { json: 'name', type: 'string' },
  2: { json: 'generateName', type: 'string' },
  3: { json: 'namespace', type: 'string' },
  4: { json: 'selfLink', type: 'string' },
  5: { json: 'uid', type: 'string' },
  6: { json: 'resourceVersion', type: 'string' },
  7: { json: 'generation', type: 'int64' },
  8: { json: 'creationTimestamp', type: 'time' },
  9: { json: 'deletionTimestamp', type: 'time' },
  10: { json: 'deletionGracePeriodSeconds', type: 'int64', pointer: true },
  11: { json: 'labels', type: 'string-map' },
  12: { json: 'annotations', type: 'string-map' },
  13: { json: 'ownerReferences', type: OWNER_REFERENCE, repeated: true },
  14: { json: 'finalizers', type: 'string', repeated: true },
  17: { json: 'managedFields', type: MANAGED_FIELDS_ENTRY, repeated: true },
});

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

/** The top-level messages the decoder knows, by `<apiVersion>/<kind>` of the envelope. */
export const PROTOBUF_KINDS: ReadonlyMap<string, MessageSchema> = new Map([
  ['v1/ConfigMap', CONFIG_MAP],
  ['v1/Namespace', NAMESPACE],
  ['v1/Secret', SECRET],
  ['v1/Service', SERVICE],
  ['v1/ServiceAccount', SERVICE_ACCOUNT],
  ['certificates.k8s.io/v1/CertificateSigningRequest', CERTIFICATE_SIGNING_REQUEST],
]);
