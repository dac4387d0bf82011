/** The management API: the server, OwnedAccessKey, access-key authentication. */
export { AccessKeyAuthenticator, type AccessKeyAuthenticatorOptions } from './access-key-authenticator.js';
export { AccessKeyHasher, generateAccessKey, isKeyHash, weakKeyReason } from './access-key-hasher.js';
export { ensureBootstrapAdminKey, ensureKeyHashSecret, writeSecretFile, type BootstrapAdminKeyOptions } from './bootstrap-admin-key.js';
export * from './management-constants.js';
export { ensureSharedKeyHashSecret, runDaemonManagement, type DaemonManagementOptions } from './daemon-management.js';
export { directClusterEndpointTokenKind } from './direct-cluster-endpoint-token-kind.js';
export { deferredCsrClient, type CsrClient } from './client-certificates.js';
export { ingressHostOf, KubeConfigs, type VirtualClusterAccess } from './kube-configs.js';
export { DirectTokens, looksLikeJwt, type DirectTokenVerification } from './direct-tokens.js';
export { ManagementMetrics, type AuthenticationFailureCause } from './management-metrics.js';
export { MANAGEMENT_VERSION_INFO, startManagementServer, type DirectTokenOptions, type ManagementServer, type ManagementServerOptions } from './management-server.js';
export { expiresAtMs, ownedAccessKeyKind, ownerOf, type KeyOwner, type OwnedAccessKeyKindOptions } from './owned-access-key-kind.js';
export { authorizeManagementRequest, authorizeOwnership, isManagementAdmin, MANAGEMENT_AUTHORIZER } from './ownership-authorizer.js';
export { reviewToken, TOKEN_REVIEW_API_VERSIONS } from './token-review.js';
export { TokenVerifierChain, type NamedTokenVerifier, type TokenReviewRequest, type TokenVerification, type TokenVerifier } from './token-verifier.js';
