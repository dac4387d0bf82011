import { COMMON_SCHEMAS, type KindSchema, REFUSE_UNKNOWN_FIELDS, type SchemaObject } from '../apiserver/index.js';
import { REQUEST_TARGET_KINDS } from './access-scope.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const string = (description: string): SchemaObject => ({ type: 'string', description });
const boolean = (description: string): SchemaObject => ({ type: 'boolean', description });
const timestamp = (description: string): SchemaObject => ({ type: 'string', format: 'date-time', description });
/** A Go `[]byte`: base64 in JSON. */
const bytes = (description: string): SchemaObject => ({ type: 'string', format: 'byte', description: `${description} Base64.` });
const strings = (description: string): SchemaObject => ({ type: 'array', items: { type: 'string' }, description });
const object = (description: string, properties: Record<string, SchemaObject>): SchemaObject => ({ type: 'object', description, properties });
const list = (description: string, properties: Record<string, SchemaObject>): SchemaObject => ({ type: 'array', description, items: { type: 'object', properties } });

/** The values of OwnedAccessKey `spec.type` (the vCluster Platform's `AccessKeyType`). */
export const ACCESS_KEY_TYPES = ['', 'Login', 'User', 'Other', 'Reset', 'OIDCRefreshToken', 'NetworkPeer', 'Workspace'] as const;

/**
 * The scope: what a key (or a token issued with one) may reach. Nothing in it is ever dropped: an
 * unknown field anywhere below is refused (422) whatever `fieldValidation` says, since a scope
 * missing a part it was written with could reach further than meant.
 */
export const ACCESS_SCOPE_SCHEMA: SchemaObject = {
  ...object('The reach of the key; absent, or every list empty and allowLoftCli unset: unrestricted. An unknown field anywhere in it is refused (422).', {
    roles: list('Managed permissions.', { role: string('Name of the role, e.g. platformCLI.'), projects: strings('Projects the key can access.'), virtualClusters: strings('Virtual clusters the key can access.') }),
    projects: list('Projects the key can access.', { project: string('Project name; * selects all projects.') }),
    spaces: list('Spaces the key can access.', { project: string('Project name.'), space: string('Space name; * selects all spaces.') }),
    virtualClusters: list('Virtual clusters the key can access.', { project: string('Project name.'), virtualCluster: string('Virtual cluster name; * selects all.') }),
    clusters: list('Clusters the key can access.', { cluster: string('Cluster name; * selects all clusters.') }),
    rules: list('Deprecated, use projects, spaces and virtualClusters.', {
      verbs: strings('Matching verbs; empty means every verb.'),
      resources: list('Matching resources; empty means all kinds in all groups.', {
        group: string('API group; empty is the core group.'),
        resources: strings('Resource names, subresources as name/sub.'),
        resourceNames: strings('Instance names; empty means all.'),
      }),
      namespaces: strings('Matching namespaces; empty string matches non-namespaced resources.'),
      nonResourceURLs: strings('URL paths; a wildcard only as the full, final step.'),
      requestTargets: strings(`Allowed request targets (${REQUEST_TARGET_KINDS.join(', ')}); empty means every request.`),
      cluster: string('Cluster the rule matches.'),
      virtualClusters: list('Virtual clusters the rule matches.', { name: string('Name; empty means all.'), namespace: string('Namespace; empty means all.') }),
      allowPlatformCli: boolean('Deprecated: allows the read-only requests the CLI needs.'),
    }),
    allowLoftCli: boolean('Deprecated (the reference platform\'s name): allows the read-only requests the CLI needs, as a loft-cli (platformCLI) roles entry; alone, a CLI-only key.'),
  }),
  [REFUSE_UNKNOWN_FIELDS]: true,
};

const SPEC = object('The desired state of an access key.', {
  displayName: string('Name shown in the UI.'),
  description: string('Free description.'),
  user: string('The user the key refers to.'),
  team: string('The team the key refers to.'),
  subject: string('Generic subject, usable instead of user or team.'),
  groups: strings('Extra groups applied when the key is used.'),
  key: string('The access key, used as a bearer token. Generated when absent; shown only in the create response, stored only as a keyed hash.'),
  disabled: boolean('If true, the key continues to exist but does not grant API access.'),
  ttl: { type: 'integer', format: 'int64', description: 'Time to live of the key in seconds, from creation (or from status.lastActivity with ttlAfterLastActivity); 0 or absent: no expiry.' },
  ttlAfterLastActivity: boolean('If set, the time to live counts from status.lastActivity instead of from creation time.'),
  scope: ACCESS_SCOPE_SCHEMA,
  type: { type: 'string', enum: [...ACCESS_KEY_TYPES], description: `Whether the key is user managed (User, what the CLI sets) or managed by the platform itself: one of ${ACCESS_KEY_TYPES.map((one) => JSON.stringify(one)).join(', ')}.` },
  identity: object('Single-sign-on login data.', {
    userId: string('Subject of the user.'),
    username: string('Username.'),
    preferredUsername: string('Preferred username or display name.'),
    email: string('User e-mail.'),
    emailVerified: boolean('Whether the e-mail was verified.'),
    extraClaims: { type: 'object', description: 'Further claims from the OIDC provider.', 'x-kubernetes-preserve-unknown-fields': true },
    groups: strings('Groups from the identity provider.'),
    connector: string('Name of the connector that created the key.'),
    connectorData: bytes('Connector data for later requests; never returned through the API.'),
    identityRefresh: timestamp('Last time the identity was refreshed (also accepted at spec level, where the reference platform has it).'),
  }),
  identityRefresh: timestamp('Last time the identity was refreshed (the reference platform\'s place for it).'),
  oidcProvider: object('Data about a refresh token.', {
    clientId: string('Client the token was generated for.'),
    nonce: string('Nonce to use.'),
    redirectUri: string('Redirect URI to use.'),
    scopes: string('Scopes to use.'),
  }),
  parent: string('Deprecated. Shares OIDC and external token information between keys.'),
  oidcLogin: object('Deprecated, use identity.', {
    idToken: bytes('ID token.'),
    accessToken: bytes('Access token.'),
    refreshToken: bytes('Refresh token.'),
    lastRefresh: timestamp('Last refresh.'),
  }),
});

/** The OpenAPI v3 schema of OwnedAccessKey in `group` (every field the Platform's type has), with its list. */
export function ownedAccessKeySchema(group: string, version: string): KindSchema {
  const name = `${group.split('.').reverse().join('.')}.${version}.OwnedAccessKey`;
  const gvk = (kind: string): SchemaObject[] => [{ group, version, kind }];
  return {
    name,
    components: {
      ...COMMON_SCHEMAS,
      [name]: {
        type: 'object',
        description: 'OwnedAccessKey is an access key a user, team or subject owns: its bearer token authenticates requests to the management API.',
        properties: {
          apiVersion: string('Versioned schema of the representation.'),
          kind: string('The kind, OwnedAccessKey.'),
          metadata: { $ref: `#/components/schemas/${META}.ObjectMeta` },
          spec: SPEC,
          status: object('The observed state of the key.', { lastActivity: timestamp('Last time the key was used to access the API.') }),
        },
        'x-kubernetes-group-version-kind': gvk('OwnedAccessKey'),
      },
      [`${name}List`]: {
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: string('Versioned schema of the representation.'),
          kind: string('The kind, OwnedAccessKeyList.'),
          metadata: { $ref: `#/components/schemas/${META}.ListMeta` },
          items: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
        },
        'x-kubernetes-group-version-kind': gvk('OwnedAccessKeyList'),
      },
    },
  };
}
