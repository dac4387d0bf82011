/**
 * The OpenAPI schemas of the core kinds' fields, as the devcluster serves them: loose where vcsync
 * does not look inside (free objects), exact where kubectl or the syncer rely on a field.
 */
import { SCHEMA, type SchemaObject } from '../apiserver/openapi.js';

const { string, integer, stringMap, freeObject, objectList } = SCHEMA;

/** The top-level fields of each core kind besides apiVersion, kind and metadata, by kind. */
export const CORE_KIND_FIELDS: Readonly<Record<string, Readonly<Record<string, SchemaObject>>>> = {
  Namespace: { spec: freeObject, status: freeObject },
  Service: { spec: freeObject, status: freeObject },
  Endpoints: { subsets: { type: 'array', items: { type: 'object', properties: { addresses: objectList(), notReadyAddresses: objectList(), ports: objectList() } }, 'x-kubernetes-list-type': 'atomic' } },
  Pod: { spec: freeObject, status: freeObject },
  Secret: { data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, stringData: stringMap, type: string, immutable: { type: 'boolean' } },
  ConfigMap: { data: stringMap, binaryData: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } }, immutable: { type: 'boolean' } },
  Event: {
    action: string,
    count: integer,
    eventTime: { type: 'string', format: 'date-time' },
    firstTimestamp: { type: 'string', format: 'date-time' },
    involvedObject: freeObject,
    lastTimestamp: { type: 'string', format: 'date-time' },
    message: string,
    reason: string,
    related: freeObject,
    reportingComponent: string,
    reportingInstance: string,
    series: freeObject,
    source: freeObject,
    type: string,
  },
  ServiceAccount: {
    automountServiceAccountToken: { type: 'boolean' },
    imagePullSecrets: objectList({ 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
    secrets: objectList({ 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }),
  },
  Lease: { spec: { type: 'object', properties: { holderIdentity: string, leaseDurationSeconds: integer, acquireTime: { type: 'string', format: 'date-time' }, renewTime: { type: 'string', format: 'date-time' }, leaseTransitions: integer, strategy: string, preferredHolder: string } } },
  EndpointSlice: { addressType: string, endpoints: objectList({ 'x-kubernetes-list-type': 'atomic' }), ports: objectList({ 'x-kubernetes-list-type': 'atomic' }) },
};
