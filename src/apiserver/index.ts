/**
 * The public face of the API-server core: what a server built on it (devcluster/, management/)
 * needs to define kinds, storage, authentication and authorization, and to start the server. Those
 * folders import this file only (eslint.config.js); the files behind it are the core's own.
 */
export { PrometheusApiServerMetrics } from './api-server-metrics.js';
export type { ApiServerMetrics } from './api-server-metrics.js';
export { buildApiServer } from './api-server.js';
export type { BodyDecoder } from './body-decoder.js';
export type { CreateAdmission } from './create-admission.js';
export type { ServerVersion } from './discovery.js';
export { GarbageCollector } from './garbage-collector.js';
export type { KindProcedure, KindStrategy, ProcedureRequest, WriteContext } from './kind-strategy.js';
export { dns1123LabelError, dns1123SubdomainError, duplicateValue, forbiddenValue, invalidValue, labelKeyError, labelValueError, nameError, notSupportedValue, requiredValue } from './metadata-validation.js';
export { ControllerQueues } from './object-controllers.js';
export type { ObjectChange, ObjectController } from './object-controllers.js';
export { ObjectWriter, rfc3339, storeFailure } from './object-writer.js';
export { COMMON_SCHEMAS } from './openapi.js';
export type { ReferencedOwner } from './owner-reference-permission.js';
export { decodeKubernetesProtobuf, protobufBodyDecoder } from './protobuf-decoder.js';
export { message, OBJECT_META } from './protobuf-message-schema.js';
export type { MessageSchema } from './protobuf-message-schema.js';
export type { AuthenticatedUser, RequestAuthenticator } from './request-authentication.js';
export type { AccessDecision, NonResourceDecision, NonResourceRule, RequestAuthorizer, RulesDescription } from './request-authorization.js';
export type { ResourceRequest } from './request-info.js';
export { resourceIdOf, ResourceRegistry, resourceType } from './resource-type.js';
export type { KindDefinition, ResourceType } from './resource-type.js';
export type { SchemaObject } from './schema-object.js';
export { REFUSE_UNKNOWN_FIELDS } from './schema-pruning.js';
export type { KindSchema } from './schema-pruning.js';
export { createAuthenticator } from './security/authenticator.js';
export { createCertificateRequest } from './security/certificate-request-builder.js';
export { childrenOf, type DerElement, expectTag, MalformedDerError, objectIdentifierOf, pemBlock, readElement } from './security/der-reader.js';
export { DerTag } from './security/der-writer.js';
export { certificateRequestParts, ClientCertificateAuthority, signClientCertificateRequest, type CertificateRequestParts, type ClientKeyUsage, type ClientRequestSigning } from './security/client-certificate-authority.js';
export type { CertificateAndKey, ClientSubject } from './security/certificate-issuer.js';
export { ensureTlsAssets } from './security/tls-assets.js';
export type { TlsAssets } from './security/tls-assets.js';
export { SELF_REVIEW_PROTOBUF_KINDS } from './self-reviews.js';
export { SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND } from './self-subject-rules-review.js';
export { StorageControllers } from './storage-controllers.js';
export { StorageError } from './storage.js';
export type { ObjectRef, Preconditions, ResourceId, Storage, StorageErrorCode, StorageEvent, StorageList, StorageListOptions, StorageWatch, StorageWatchFilter, StorageWatchListener, StoredObject, StoredObjectMeta } from './storage.js';
export type { PatchStrategyTable } from './strategic-merge-patch.js';
export { AGE_COLUMN, humanDuration, NAME_COLUMN, tableColumn } from './table-column.js';
export type { TableColumn } from './table-column.js';
export { watchLimitsWithDefaults } from './watch-admission.js';
export type { WatchLimits } from './watch-admission.js';
