/**
 * Every fixed name and number of the management API in one place: the group, the base path, the
 * admin group, the access-key format and the authentication cache.
 */

/** The platform word of the group `management.<platform>.sh` when none is configured (clients hard-code loft). */
export const DEFAULT_PLATFORM = 'loft';

/** The group of the management kinds for `platform`, e.g. `management.loft.sh`. */
export function managementGroup(platform: string): string {
  return `management.${platform}.sh`;
}

/** The version of every management kind. */
export const MANAGEMENT_VERSION = 'v1';

/** The path the management API is served under (then the Kubernetes layout: /apis, /openapi). */
export const MANAGEMENT_BASE_PATH = '/kubernetes/management';

/**
 * Where the TokenReview webhook is served, under the base path: the path of the Kubernetes
 * TokenReview API, so a kube-apiserver's `--authentication-token-webhook-config-file` names
 * `https://HOST:PORT/kubernetes/management/apis/authentication.k8s.io/v1/tokenreviews`.
 */
export const TOKEN_REVIEW_PATH = '/apis/authentication.k8s.io/v1/tokenreviews';

/** How the management server names itself in OpenAPI descriptions and review answers. */
export const MANAGEMENT_SERVER_NAME = 'vcsync management API';

/** Members of this group see and change every key (the default ownership rule); the bootstrap key has it. */
export const MANAGEMENT_ADMIN_GROUP = 'management:admins';

/** The user of the bootstrap admin key. */
export const BOOTSTRAP_ADMIN_USER = 'admin';

/** The name of the bootstrap admin key's OwnedAccessKey. */
export const BOOTSTRAP_ADMIN_KEY_NAME = 'vcsync-bootstrap-admin';

/**
 * `spec.type` of keys vcsync itself manages (the bootstrap key), as opposed to `User`: `Other`,
 * one of the reference platform's values (keys stored before with `Platform` keep it; validation
 * ratchets).
 */
export const PLATFORM_KEY_TYPE = 'Other';

/** The field manager of the server's own writes (lastActivity, the bootstrap key). */
export const MANAGEMENT_FIELD_MANAGER = 'vcsync-management';

/** Random bytes in a generated access key: 256 bits. */
export const GENERATED_KEY_BYTES = 32;

/**
 * The shortest access key a client may choose: 32 characters of base64url (192 bits at most), and
 * only base64url characters, so no key can be mistaken for a stored hash.
 */
export const MIN_CLIENT_KEY_LENGTH = 32;

/** The longest access key accepted (a bearer token, not a document). */
export const MAX_KEY_LENGTH = 512;

/** The prefix of a stored key hash: `hmac-sha256:<base64url of HMAC-SHA256(secret, key)>`. */
export const KEY_HASH_PREFIX = 'hmac-sha256:';

/** Bytes of the per-installation HMAC secret when one is generated. */
export const KEY_HASH_SECRET_BYTES = 32;

/** Verified keys kept by the authenticator (least recently used evicted first). */
export const AUTH_CACHE_MAX_KEYS = 10_000;

/** Distinct key scopes whose parsed form the authorizer keeps (least recently used dropped first). */
export const SCOPE_PARSE_CACHE_MAX = 1_000;

/** `status.lastActivity` is written at most once per this many ms per key: a busy pipeline is not a write per request. */
export const LAST_ACTIVITY_WRITE_INTERVAL_MS = 60_000;

/** How long the authenticator waits before watching again after its watch ended, in ms. */
export const AUTH_REWATCH_DELAY_MS = 500;

/** The `extra` entry of an authenticated key's user: what owns it (`user`, `team` or `subject`). */
export const OWNER_KIND_EXTRA = 'vcsync.dev/owner-kind';

/** The `extra` entry of an authenticated key's user: the owner's name. */
export const OWNER_NAME_EXTRA = 'vcsync.dev/owner-name';

/** The `extra` entry of an authenticated key's user: the OwnedAccessKey it presented. */
export const ACCESS_KEY_EXTRA = 'vcsync.dev/access-key';

/** The `extra` entry of an authenticated key's user: the uid of the OwnedAccessKey it presented. */
export const ACCESS_KEY_UID_EXTRA = 'vcsync.dev/access-key-uid';

/**
 * The `extra` entry of an authenticated key's user: every owner its spec names, as `user=alice`,
 * `team=ops`, `subject=ci` (ownership compares all of them, not only the first).
 */
export const KEY_OWNERS_EXTRA = 'vcsync.dev/key-owners';

/** The `extra` entry of an authenticated key's user: its `spec.scope` as JSON; absent when the key has none (unrestricted). */
export const KEY_SCOPE_EXTRA = 'vcsync.dev/key-scope';

/** The Secret in the host namespace holding the access-key HMAC secret every replica of `vcsync start` shares. */
export const KEY_HASH_SECRET_NAME = 'vcsync-management-key-hash';

/** Where the token-signing keys live in the management storage: a partition the API does not serve. */
export const SIGNING_KEY_RING_RESOURCE = 'internal.vcsync.dev/v1/signingkeyrings';

/** The object of {@link SIGNING_KEY_RING_RESOURCE} whose keys sign DirectClusterEndpointTokens. */
export const SIGNING_KEY_RING_NAME = 'direct-cluster-endpoint-tokens';

/** The object of {@link SIGNING_KEY_RING_RESOURCE} whose keys sign the tokens of token kube configs. */
export const KUBE_CONFIG_SIGNING_KEY_RING_NAME = 'kube-config-tokens';

/**
 * The algorithm of the kube-config tokens' keys: ES256, whose signature costs a tenth of RS256's.
 * Only vcsync's token review and verifiers of the published key set read these tokens, so the
 * reference platform's RS256 (kept for DirectClusterEndpointTokens) does not bind them.
 */
export const KUBE_CONFIG_TOKEN_ALGORITHM = 'ES256';

/** A DirectClusterEndpointToken without `spec.ttl` (or with 0) lives this long, in seconds. */
export const DIRECT_TOKEN_DEFAULT_TTL_SECONDS = 3600;

/** The longest a DirectClusterEndpointToken lives, in seconds; a larger `spec.ttl` is cut to it. */
export const DIRECT_TOKEN_MAX_TTL_SECONDS = 86_400;

/** How long one signing key signs before the next takes over, in ms (7 days). */
export const SIGNING_KEY_ROTATION_INTERVAL_MS = 7 * 24 * 3600 * 1000;

/** How long clients may cache the published key set, in seconds. */
export const KEY_SET_MAX_AGE_SECONDS = 300;

/**
 * How long before a signing key retires its successor is published, in ms (1 hour): far longer
 * than {@link KEY_SET_MAX_AGE_SECONDS}, so a verifier's cached key set knows a key before it signs.
 */
export const SIGNING_KEY_PREPUBLISH_MS = 3600 * 1000;

/** The audience of DirectClusterEndpointTokens unless configured otherwise. */
export const DEFAULT_DIRECT_TOKEN_AUDIENCE = 'vcsync-direct-cluster-endpoint';

/** OpenID Connect discovery, served at the management listener's root. */
export const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';

/** The published key set (`jwks_uri`), at the management listener's root as the real apiserver's. */
export const KEY_SET_PATH = '/openid/v1/jwks';

/** The shortest client certificate a CertificateSigningRequest may ask for (`spec.expirationSeconds`), in seconds. */
export const MIN_CERTIFICATE_TTL_SECONDS = 600;

/** `certificateTTL` when a kube config request does not set it: one day, as the Platform's. */
export const DEFAULT_CERTIFICATE_TTL_SECONDS = 86_400;

/**
 * The label of the CertificateSigningRequests vcsync creates for client-certificate kube configs:
 * its one watch of their outcomes selects them by the key, and its value names the batch they are
 * deleted with (one deletecollection per batch).
 */
export const KUBE_CONFIG_REQUEST_LABEL = 'management.vcsync.dev/kube-config-request';

/** How long a kube config request waits for the virtual cluster to sign its client certificate, in ms. */
export const CERTIFICATE_SIGNING_TIMEOUT_MS = 30_000;

/** The user of a returned kube config (the reference CLI reads the client certificate from it). */
export const KUBECONFIG_USER = 'vcluster';

/** The CertificateSigningRequests of a cluster (certificates.k8s.io/v1). */
export const CSR_COLLECTION = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
