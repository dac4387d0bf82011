/**
 * The one table of the differential conformance suite: every case runs, unchanged, against the
 * devcluster and the real kube-apiserver, and their normalised answers are compared (see
 * `normalize.ts`). Paths and bodies may name `{ns}` (the case's own namespace) and values saved
 * by earlier steps: `{x}` (resourceVersion), `{xName}`, `{xUid}`, `{xContinue}` for `save: 'x'`.
 */
import { derBoolean, derContext, derObjectIdentifier, derOctetString, derSequence, derSet, derSmallInteger } from '../../src/apiserver/security/der-writer.js';
import { extensionRequest, requestWithAttributes } from '../support/certificate-requests.js';

/** The issue's categories, in the order the suite reports them. */
export type Category = 'lists' | 'watches' | 'writes' | 'deletion' | 'metadata' | 'endpoints-service' | 'apply' | 'certificates' | 'rbac' | 'statefulsets' | 'discovery' | 'errors';

/** One request of a case. */
export interface Step {
  /** Default GET. */
  method?: string;
  path: string;
  /** JSON-encoded unless a string. */
  body?: unknown;
  /** Default `application/json` when there is a body; '' sends the body without a Content-Type. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Prepares state: sent on both backends, not compared. */
  setup?: boolean;
  /** Saves the answer's resourceVersion, name, uid and continue token under this name. */
  save?: string;
  /** Resend (100 ms apart, 15 s deadline) until the status is this one; records the last answer. */
  until?: number;
  /** Compare only this projection of the normalised body (or of each watch event's object); not applied to non-JSON answers. */
  pick?: (body: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any -- projections read arbitrary JSON
  /** Also compare Status message text. Default false. */
  keepMessage?: boolean;
  /** A watch: read this many events or until `timeoutSeconds` (default 2). */
  watch?: { events: number; timeoutSeconds?: number };
}

/** One case of the table. */
export interface ConformanceCase {
  /** Unique; the key of `known-divergences.ts`. */
  name: string;
  category: Category;
  /** Compare the cross-cutting differences too (`CROSS_CUTTING` in normalize.ts). Default false. */
  strict?: boolean;
  /** Create the case's namespace `{ns}` first. Default true. */
  namespace?: boolean;
  steps: Step[];
}

const NS = '/api/v1/namespaces/{ns}';
const CM = `${NS}/configmaps`;
const SVC = `${NS}/services`;
const EP = `${NS}/endpoints`;
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

function cm(name: string, extra: Record<string, unknown> = {}, data: Record<string, string> = { a: '1' }): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

function svc(name: string, spec: Record<string, unknown> = { ports: [{ name: 'http', port: 80 }] }, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...metadata }, spec };
}

function ep(name: string, subsets: unknown[]): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets };
}

const labelled = (name: string, extra: Record<string, unknown> = {}): Step => ({ method: 'POST', path: CM, body: cm(name, { labels: { conf: 'yes' }, ...extra }), setup: true });
const owner = (uidVar: string): Record<string, unknown> => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: `{${uidVar}}` }] });
/** A ConfigMap `owner` and a ConfigMap `dep` that it owns (setup steps). */
const OWNER_AND_DEPENDENT: readonly Step[] = [
  { method: 'POST', path: CM, body: cm('owner'), setup: true, save: 'o' },
  { method: 'POST', path: CM, body: cm('dep', owner('oUid')), setup: true },
];
const names = (list: { items?: { metadata: { name: string } }[] }): unknown => list.items?.map((item) => item.metadata.name);
const meta = (object: { metadata?: unknown }): unknown => object.metadata;
const statusOnly = (): unknown => null;
const managedFields = (object: { metadata?: { managedFields?: unknown } }): unknown => object.metadata?.managedFields;

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
/** A fixed PKCS#10 request (ECDSA P-256, CN=conformance, O=conformance-group): the same bytes on both servers. */
const CSR_PEM = `-----BEGIN CERTIFICATE REQUEST-----
MIHtMIGUAgEAMDIxFDASBgNVBAMMC2NvbmZvcm1hbmNlMRowGAYDVQQKDBFjb25m
b3JtYW5jZS1ncm91cDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABKAcTCPxojNm
R4lZj4CqinNmuPNjAE1t/+SzYPtegBztL5FAErisgT2JDidlozwWykqElWov8xRP
vJ6fTeAHi3CgADAKBggqhkjOPQQDAgNIADBFAiEAgXWlOB5uQmCgJ9l0YtHwJFA5
7nQwHsOMWlHJdcFTwaQCIAGv7YfsTIEc1dY09sG+gB1WXnoo+m2L8YA5G6dd7cQS
-----END CERTIFICATE REQUEST-----
`;
/** A fixed self-signed certificate, for status.certificate. */
const CERTIFICATE_PEM = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR2gAwIBAgIQBzlsoQHXZbIzhzqRo9/B3TAKBggqhkjOPQQDAjAZMRcw
FQYDVQQDDA5jb25mb3JtYW5jZS1jYTAgFw0yNjExMjMwMTM2MTlaGA8yMTI2MTAz
MDAxNDExOVowGTEXMBUGA1UEAwwOY29uZm9ybWFuY2UtY2EwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAARmyIWd7HFov4K9EZGhpc9hU0vanAoHuhLEHO3QNomdQzMi
oQCMTy5uSXj14+r0BtCKbAGBczR3mfudVm8+ouJxo0UwQzASBgNVHRMBAf8ECDAG
AQH/AgEAMA4GA1UdDwEB/wQEAwIBhjAdBgNVHQ4EFgQU8ikxoDO7aATzh+qiXaMm
H25E3bswCgYIKoZIzj0EAwIDSQAwRgIhAOK/Sa+MQc9VQ9sqMaZpqf+0rFyFTqiD
k8WP58ys7n8VAiEApNwuHp2aTkdP6qvdT5DTjA5AoWoGOmvK5k0MFOqxaXI=
-----END CERTIFICATE-----
`;
const base64 = (text: string): string => Buffer.from(text).toString('base64');
/** A validly self-signed request whose requested subjectAltName extension has no value. */
const EXTENSION_WITHOUT_VALUE_CSR_PEM = requestWithAttributes([extensionRequest(derSequence(derObjectIdentifier('2.5.29.17')))], 'conformance');
/** A validly self-signed request with attributes that do not parse beside a well-formed subjectAltName request. */
const ODD_ATTRIBUTES_CSR_PEM = requestWithAttributes(
  [
    derSmallInteger(7),
    derSequence(derObjectIdentifier('1.2.840.113549.1.9.2'), derSet()),
    extensionRequest(derSequence(derObjectIdentifier('2.5.29.17'), derBoolean(false), derOctetString(derSequence(derContext(2, false, Buffer.from('x.example')))))),
  ],
  'conformance',
);
/**
 * A CertificateSigningRequest named after the case (`{ns}-<suffix>`: cluster-scoped, unique per
 * case). Its signer is nobody's by default, so kube-controller-manager leaves it alone.
 */
function csr(suffix: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: `{ns}-${suffix}` }, spec: { request: base64(CSR_PEM), signerName: 'example.com/conformance', usages: ['client auth'], ...spec }, ...extra };
}
const csrPath = (suffix: string, subresource = ''): string => `${CSRS}/{ns}-${suffix}${subresource === '' ? '' : `/${subresource}`}`;
/** The requester differs by design (the devcluster of the suite is anonymous, the real server sees the admin's certificate). */
const withoutRequester = (object: { spec?: Record<string, unknown> }): unknown => ({ ...object, spec: { ...object.spec, username: undefined, groups: undefined, extra: undefined } });
const APPROVED = { type: 'Approved', status: 'True', reason: 'ConformanceApproval', message: 'approved by the suite' };
const createCsr = (suffix: string, spec: Record<string, unknown> = {}): Step => ({ method: 'POST', path: CSRS, body: csr(suffix, spec), setup: true });

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
const ROLES = `${RBAC_V1}/namespaces/{ns}/roles`;
const ROLE_BINDINGS = `${RBAC_V1}/namespaces/{ns}/rolebindings`;
const CLUSTER_ROLES = `${RBAC_V1}/clusterroles`;
const CLUSTER_ROLE_BINDINGS = `${RBAC_V1}/clusterrolebindings`;
const READ_ENDPOINTS = { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch'] };
const role = (name: string, rules: unknown[] = [READ_ENDPOINTS]): Record<string, unknown> => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
/** A binding of `kind` (RoleBinding, ClusterRoleBinding) named `name`; cluster-scoped ones are named after the case. */
function binding(kind: string, name: string, roleRef: unknown, subjects: unknown[] = [{ kind: 'ServiceAccount', name: 'vcsync', namespace: '{ns}' }]): Record<string, unknown> {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, ...(roleRef === undefined ? {} : { roleRef }), subjects };
}
const STATEFUL_SETS = '/apis/apps/v1/namespaces/{ns}/statefulsets';
const LABELS = { app: 'conf' };
/**
 * A StatefulSet of no replicas (the real server's StatefulSet controller makes no Pod of it, but
 * writes its status: steps after the create compare projections without status).
 */
function statefulSet(name: string, spec: Record<string, unknown> = {}, template: Record<string, unknown> = {}): Record<string, unknown> {
  const podTemplate = { metadata: { labels: LABELS }, spec: { containers: [{ name: 'main', image: 'registry.example/main:1.0' }] }, ...template };
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: { serviceName: 'conf', replicas: 0, selector: { matchLabels: LABELS }, template: podTemplate, ...spec } };
}
const createStatefulSet = (name: string): Step => ({ method: 'POST', path: STATEFUL_SETS, body: statefulSet(name), setup: true });
const withoutStatus = (object: Record<string, unknown>): unknown => ({ ...object, status: undefined });
const AS_TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const tableOf =
  (cells: (row: unknown[]) => unknown[]) =>
  (t: { columnDefinitions?: { name: string; type: string; priority: number }[]; rows?: { cells: unknown[] }[] }): unknown => ({
    columns: t.columnDefinitions?.map(({ name, type, priority }) => ({ name, type, priority })),
    cells: t.rows?.map((row) => cells(row.cells)),
  });
const discoveryOf = (filter: (name: string) => boolean) => (d: { resources: { name: string; verbs: string[] }[] }): unknown =>
  d.resources.filter((r) => filter(r.name)).map((r) => ({ ...r, verbs: [...r.verbs].sort(), storageVersionHash: undefined }));

/** The table. */
export const CASES: readonly ConformanceCase[] = [
  // ---- lists
  { name: 'list: an empty selection has the list shape', category: 'lists', steps: [{ path: `${CM}?labelSelector=conf%3Dnone` }] },
  { name: 'list: items by label selector, in name order', category: 'lists', steps: [labelled('b'), labelled('a'), { path: `${CM}?labelSelector=conf%3Dyes` }] },
  {
    name: 'list: limit pages with continue and remainingItemCount',
    category: 'lists',
    steps: [labelled('a'), labelled('b'), labelled('c'), { path: `${CM}?labelSelector=conf%3Dyes&limit=2`, save: 'page' }, { path: `${CM}?labelSelector=conf%3Dyes&limit=2&continue={pageContinue}` }],
  },
  { name: 'list: resourceVersion=0 is served', category: 'lists', steps: [labelled('a'), { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion=0` }] },
  { name: 'list: resourceVersionMatch without resourceVersion is invalid', category: 'lists', steps: [{ path: `${CM}?resourceVersionMatch=NotOlderThan` }] },
  {
    name: 'list: resourceVersionMatch=Exact lists the past',
    category: 'lists',
    steps: [{ ...labelled('a'), save: 'first' }, labelled('b'), { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion={first}&resourceVersionMatch=Exact`, pick: names }],
  },
  { name: 'list: resourceVersionMatch=Exact with resourceVersion=0 is invalid', category: 'lists', steps: [{ path: `${CM}?resourceVersion=0&resourceVersionMatch=Exact` }] },
  { name: 'list: a malformed continue token is refused', category: 'lists', steps: [{ path: `${CM}?limit=1&continue=not-a-token` }] },
  { name: 'list: field selector on metadata.name', category: 'lists', steps: [labelled('a'), labelled('b'), { path: `${CM}?fieldSelector=metadata.name%3Db`, pick: names }] },
  { name: 'list: an unsupported field selector is refused', category: 'lists', steps: [{ path: `${CM}?fieldSelector=spec.nothing%3Dx` }] },
  { name: 'list: a malformed label selector is refused', category: 'lists', steps: [{ path: `${CM}?labelSelector=a%3D%3D%3Db%21` }] },
  { name: 'list: sendInitialEvents is forbidden on a list', category: 'lists', steps: [{ path: `${CM}?sendInitialEvents=true` }] },
  { name: 'list: an unsupported resourceVersionMatch is refused', category: 'lists', steps: [{ path: `${CM}?resourceVersion=1&resourceVersionMatch=Newest` }] },
  {
    name: 'list: resourceVersionMatch=Exact shows objects as they were',
    category: 'lists',
    steps: [
      { ...labelled('a'), save: 'first' },
      { method: 'PATCH', path: `${CM}/a`, contentType: MERGE, body: { data: { a: '2' } }, setup: true },
      { method: 'DELETE', path: `${CM}/a`, setup: true },
      { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion={first}&resourceVersionMatch=Exact` },
    ],
  },
  {
    name: 'list: a limit with a resourceVersion lists that version exactly',
    category: 'lists',
    steps: [{ ...labelled('a'), save: 'first' }, labelled('b'), { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion={first}&limit=5`, pick: names }],
  },

  // ---- watches
  {
    name: 'watch: from a resourceVersion replays later changes',
    category: 'watches',
    steps: [
      // The selector keeps out kube-root-ca.crt, which the real controller manager adds at any time.
      { method: 'POST', path: CM, body: cm('w', { labels: { conf: 'yes' } }), setup: true, save: 'created' },
      { method: 'PATCH', path: `${CM}/w`, contentType: MERGE, body: { data: { a: '2' } }, setup: true },
      { method: 'DELETE', path: `${CM}/w`, setup: true },
      { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion={created}`, watch: { events: 2 } },
    ],
  },
  { name: 'watch: resourceVersion=0 starts with ADDED for what exists', category: 'watches', steps: [labelled('a'), labelled('b'), { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion=0`, watch: { events: 2 }, pick: meta }] },
  { name: 'watch: from resourceVersion=1 on a young server', category: 'watches', steps: [{ path: `${CM}?labelSelector=conf%3Dyes&resourceVersion=1`, watch: { events: 1, timeoutSeconds: 1 } }] },
  {
    name: 'watch: sendInitialEvents ends the initial events with a bookmark',
    category: 'watches',
    steps: [labelled('a'), labelled('b'), { path: `${CM}?labelSelector=conf%3Dyes&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, watch: { events: 3 }, pick: meta }],
  },
  { name: 'watch: sendInitialEvents without allowWatchBookmarks is invalid', category: 'watches', steps: [{ path: `${CM}?labelSelector=conf%3Dyes&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, watch: { events: 1 } }] },
  { name: 'watch: sendInitialEvents without resourceVersionMatch is invalid', category: 'watches', steps: [{ path: `${CM}?labelSelector=conf%3Dyes&sendInitialEvents=true&allowWatchBookmarks=true`, watch: { events: 1 } }] },
  {
    name: 'watch: leaving and entering a label selector are DELETED and ADDED',
    category: 'watches',
    steps: [
      { method: 'POST', path: CM, body: cm('s', { labels: { conf: 'yes' } }), setup: true, save: 'created' },
      { method: 'PATCH', path: `${CM}/s`, contentType: MERGE, body: { metadata: { labels: { conf: null } } }, setup: true },
      { method: 'PATCH', path: `${CM}/s`, contentType: MERGE, body: { metadata: { labels: { conf: 'yes' } } }, setup: true },
      { path: `${CM}?labelSelector=conf%3Dyes&resourceVersion={created}`, watch: { events: 2 }, pick: meta },
    ],
  },
  {
    name: 'watch: a field selector on metadata.name sees only that object',
    category: 'watches',
    steps: [{ method: 'POST', path: CM, body: cm('x'), setup: true, save: 'created' }, { method: 'POST', path: CM, body: cm('y'), setup: true }, { method: 'DELETE', path: `${CM}/y`, setup: true }, { method: 'DELETE', path: `${CM}/x`, setup: true }, { path: `${CM}?fieldSelector=metadata.name%3Dx&resourceVersion={created}`, watch: { events: 1 }, pick: meta }],
  },
  { name: 'watch: resourceVersionMatch without sendInitialEvents is invalid', category: 'watches', steps: [{ path: `${CM}?labelSelector=conf%3Dyes&resourceVersionMatch=NotOlderThan`, watch: { events: 1 } }] },
  { name: 'watch: a malformed resourceVersion is refused', category: 'watches', steps: [{ path: `${CM}?resourceVersion=abc`, watch: { events: 1 } }] },

  // ---- writes
  { name: 'write: create a ConfigMap', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c') }] },
  { name: 'write: create twice is AlreadyExists', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'POST', path: CM, body: cm('c') }] },
  {
    name: 'write: update with a stale resourceVersion is a Conflict',
    category: 'writes',
    steps: [
      { method: 'POST', path: CM, body: cm('c'), setup: true, save: 'old' },
      { method: 'PATCH', path: `${CM}/c`, contentType: MERGE, body: { data: { a: '2' } }, setup: true },
      { method: 'PUT', path: `${CM}/c`, body: cm('c', { resourceVersion: '{old}' }, { a: '3' }) },
    ],
  },
  { name: 'write: update without resourceVersion is unconditional', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PUT', path: `${CM}/c`, body: cm('c', {}, { b: '2' }) }] },
  { name: 'write: a create without a Content-Type is read as JSON', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('untyped'), contentType: '' }, { path: `${CM}/untyped` }] },
  { name: 'write: a patch without a Content-Type is refused', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PATCH', path: `${CM}/c`, contentType: '', body: { data: { a: '2' } } }] },
  { name: 'write: merge patch', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PATCH', path: `${CM}/c`, contentType: MERGE, body: { data: { a: null, b: '2' }, metadata: { labels: { x: 'y' } } } }] },
  { name: 'write: JSON patch with a failing test op', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PATCH', path: `${CM}/c`, contentType: JSON_PATCH, body: [{ op: 'test', path: '/data/a', value: 'nope' }] }] },
  { name: 'write: JSON patch add and remove', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PATCH', path: `${CM}/c`, contentType: JSON_PATCH, body: [{ op: 'add', path: '/data/b', value: '2' }, { op: 'remove', path: '/data/a' }] }] },
  {
    name: 'write: strategic merge patch merges Service ports by port',
    category: 'writes',
    steps: [{ method: 'POST', path: SVC, body: svc('s'), setup: true }, { method: 'PATCH', path: `${SVC}/s`, contentType: STRATEGIC, body: { spec: { ports: [{ name: 'https', port: 443 }] } }, pick: (s: { spec: unknown }) => s.spec }],
  },
  { name: 'write: patch of a missing object is NotFound', category: 'writes', steps: [{ method: 'PATCH', path: `${CM}/missing`, contentType: MERGE, body: { data: { a: '1' } } }] },
  { name: 'write: dryRun create stores nothing', category: 'writes', steps: [{ method: 'POST', path: `${CM}?dryRun=All`, body: cm('d') }, { path: `${CM}/d` }] },
  { name: 'write: fieldValidation=Strict refuses an unknown top-level field', category: 'writes', steps: [{ method: 'POST', path: `${CM}?fieldValidation=Strict`, body: { ...cm('f'), bogus: 1 } }] },
  { name: 'write: fieldValidation=Strict refuses an unknown metadata field', category: 'writes', steps: [{ method: 'POST', path: `${CM}?fieldValidation=Strict`, body: cm('f', { bogus: 1 }) }] },
  { name: 'write: fieldValidation=Strict refuses an unknown field in a list item', category: 'writes', steps: [{ method: 'POST', path: `${SVC}?fieldValidation=Strict`, body: svc('f', { ports: [{ port: 80, bogus: 1 }] }) }] },
  { name: 'write: fieldValidation=Strict refuses a duplicate field', category: 'writes', steps: [{ method: 'POST', path: `${CM}?fieldValidation=Strict`, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f","name":"g"}}' }] },
  { name: 'write: fieldValidation=Ignore drops unknown fields', category: 'writes', steps: [{ method: 'POST', path: `${SVC}?fieldValidation=Ignore`, body: svc('f', { ports: [{ port: 80, bogus: 1 }] }), pick: (s: { spec: { ports: unknown } }) => s.spec.ports }] },
  { name: 'write: an invalid fieldValidation value is refused', category: 'writes', steps: [{ method: 'POST', path: `${CM}?fieldValidation=Loud`, body: cm('f') }] },
  {
    name: 'write: fieldValidation=Strict names unknown and duplicate fields in document order',
    category: 'writes',
    steps: [{ method: 'POST', path: `${CM}?fieldValidation=Strict`, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f","zz":1,"name":"g"},"data":{"a":"1","a":"2"},"top":{"x":1}}', keepMessage: true }],
  },
  { name: 'write: fieldValidation=Warn drops unknown fields at every depth', category: 'writes', steps: [{ method: 'POST', path: SVC, body: svc('f', { ports: [{ port: 80, bogus: 1 }], zzz: { a: 1 } }, { colour: 'red' }), pick: (s: { metadata: { colour?: unknown }; spec: Record<string, unknown> }) => ({ colour: s.metadata.colour, zzz: s.spec['zzz'], ports: s.spec['ports'] }) }] },
  { name: 'write: an invalid fieldValidation value on a patch is refused', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('p'), setup: true }, { method: 'PATCH', path: `${CM}/p?fieldValidation=Loud`, contentType: MERGE, body: { data: { a: '2' } }, keepMessage: true }] },
  { name: 'write: an immutable ConfigMap refuses data changes', category: 'writes', steps: [{ method: 'POST', path: CM, body: { ...cm('i'), immutable: true }, setup: true }, { method: 'PATCH', path: `${CM}/i`, contentType: MERGE, body: { data: { a: '2' } } }] },
  // Outside both servers' ranges, so never the cluster IP the Service was given (which would make the write a no-op).
  { name: 'write: a Service clusterIP cannot change', category: 'writes', steps: [{ method: 'POST', path: SVC, body: svc('s'), setup: true }, { method: 'PATCH', path: `${SVC}/s`, contentType: MERGE, body: { spec: { clusterIP: '192.168.99.2' } } }] },
  { name: 'write: a body naming another namespace is refused', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c', { namespace: 'default' }) }] },
  { name: 'write: PUT with another name is refused', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PUT', path: `${CM}/c`, body: cm('d') }] },
  { name: 'write: generateName gets a suffix', category: 'writes', steps: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } }] },
  { name: 'write: an invalid name is Invalid', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('Not_Valid') }] },
  { name: 'write: Secret stringData becomes data', category: 'writes', steps: [{ method: 'POST', path: `${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } } }] },
  { name: 'write: create a Lease', category: 'writes', steps: [{ method: 'POST', path: '/apis/coordination.k8s.io/v1/namespaces/{ns}/leases', body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } }] },
  {
    name: 'write: create an EndpointSlice',
    category: 'writes',
    steps: [{ method: 'POST', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'e' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }], ports: [{ name: 'http', port: 80 }] } }],
  },
  { name: 'write: an immutable Secret refuses data changes', category: 'writes', steps: [{ method: 'POST', path: `${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'MQ==' }, immutable: true }, setup: true }, { method: 'PATCH', path: `${NS}/secrets/s`, contentType: MERGE, body: { stringData: { a: '2' } } }] },
  { name: 'write: a TLS Secret needs its keys', category: 'writes', steps: [{ method: 'POST', path: `${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '' } } }] },
  { name: 'write: ConfigMap keys must be file names', category: 'writes', steps: [{ method: 'POST', path: CM, body: cm('k', {}, { 'a b': '1' }) }] },
  {
    name: 'write: strategic merge patch puts a new finalizer first',
    category: 'writes',
    steps: [{ method: 'POST', path: CM, body: cm('f', { finalizers: ['example.com/a'] }), setup: true }, { method: 'PATCH', path: `${CM}/f`, contentType: STRATEGIC, body: { metadata: { finalizers: ['example.com/b'] } }, pick: (c: { metadata: { finalizers?: string[] } }) => c.metadata.finalizers }, { method: 'PATCH', path: `${CM}/f`, contentType: MERGE, body: { metadata: { finalizers: null } }, setup: true }],
  },
  { name: 'write: create a ServiceAccount', category: 'writes', steps: [{ method: 'POST', path: `${NS}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } }] },

  // ---- deletion
  { name: 'delete: a ConfigMap answers the deleted object', category: 'deletion', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'DELETE', path: `${CM}/c` }, { path: `${CM}/c` }] },
  { name: 'delete: a missing object is NotFound', category: 'deletion', steps: [{ method: 'DELETE', path: `${CM}/missing` }] },
  { name: 'delete: a uid precondition that does not match is a Conflict', category: 'deletion', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'DELETE', path: `${CM}/c`, body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } } }] },
  { name: 'delete: dryRun keeps the object', category: 'deletion', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'DELETE', path: `${CM}/c?dryRun=All` }, { path: `${CM}/c`, pick: statusOnly }] },
  {
    name: 'delete: a finalizer keeps the object until it is removed',
    category: 'deletion',
    steps: [
      { method: 'POST', path: CM, body: cm('f', { finalizers: ['example.com/hold'] }), setup: true },
      { method: 'DELETE', path: `${CM}/f` },
      { path: `${CM}/f`, pick: meta },
      { method: 'PATCH', path: `${CM}/f`, contentType: MERGE, body: { metadata: { finalizers: null } }, setup: true },
      { path: `${CM}/f`, until: 404 },
    ],
  },
  {
    name: 'delete: a namespace goes Terminating and then away',
    category: 'deletion',
    steps: [{ method: 'DELETE', path: NS, pick: (ns: { status?: unknown; spec?: unknown }) => ({ status: ns.status, spec: ns.spec }) }, { path: NS, until: 404 }],
  },
  {
    name: 'delete: creating in a terminating namespace is Forbidden',
    category: 'deletion',
    steps: [
      { method: 'POST', path: CM, body: cm('hold', { finalizers: ['example.com/hold'] }), setup: true },
      { method: 'DELETE', path: NS, setup: true },
      // The real server's admission reads the namespace from an informer: retry until it knows.
      { method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'late-' } }, until: 403 },
      { method: 'PATCH', path: `${CM}/hold`, contentType: MERGE, body: { metadata: { finalizers: null } }, setup: true },
    ],
  },
  {
    name: 'delete: protected namespaces cannot be deleted',
    category: 'deletion',
    namespace: false,
    steps: ['default', 'kube-system', 'kube-public'].map((name): Step => ({ method: 'DELETE', path: `/api/v1/namespaces/${name}`, keepMessage: true })),
  },
  {
    name: 'delete: background propagation collects dependents',
    category: 'deletion',
    steps: [
      ...OWNER_AND_DEPENDENT,
      { method: 'DELETE', path: `${CM}/owner?propagationPolicy=Background`, pick: statusOnly },
      { path: `${CM}/dep`, until: 404 },
    ],
  },
  {
    name: 'delete: orphan propagation keeps dependents without the owner reference',
    category: 'deletion',
    steps: [
      ...OWNER_AND_DEPENDENT,
      { method: 'DELETE', path: `${CM}/owner?propagationPolicy=Orphan`, pick: (c: { metadata: { finalizers?: unknown } }) => c.metadata.finalizers ?? null },
      { path: `${CM}/owner`, until: 404 },
      { path: `${CM}/dep`, pick: (c: { metadata: { ownerReferences?: unknown } }) => c.metadata.ownerReferences ?? null },
    ],
  },
  {
    name: 'delete: foreground propagation deletes dependents first',
    category: 'deletion',
    steps: [
      ...OWNER_AND_DEPENDENT,
      { method: 'DELETE', path: `${CM}/owner?propagationPolicy=Foreground`, pick: (c: { metadata: { finalizers?: unknown } }) => c.metadata.finalizers ?? null },
      { path: `${CM}/owner`, until: 404 },
      { path: `${CM}/dep` },
    ],
  },
  {
    name: 'delete: deletecollection by label selector',
    category: 'deletion',
    steps: [labelled('a'), labelled('b'), { method: 'POST', path: CM, body: cm('keep'), setup: true }, { method: 'DELETE', path: `${CM}?labelSelector=conf%3Dyes`, pick: names }, { path: CM, pick: (l: { items: { metadata: { name: string } }[] }) => l.items.map((i) => i.metadata.name).filter((n) => n !== 'kube-root-ca.crt') }],
  },

  // ---- metadata
  { name: 'metadata: a ConfigMap has no generation', strict: true, category: 'metadata', steps: [{ method: 'POST', path: CM, body: cm('g'), pick: (c: { metadata: { generation?: number } }) => c.metadata.generation ?? null }] },
  {
    name: 'metadata: a Service generation moves with spec, not labels', strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: SVC, body: svc('s'), pick: (s: { metadata: { generation?: number } }) => s.metadata.generation ?? null },
      { method: 'PATCH', path: `${SVC}/s`, contentType: MERGE, body: { metadata: { labels: { a: 'b' } } }, pick: (s: { metadata: { generation?: number } }) => s.metadata.generation ?? null },
      { method: 'PATCH', path: `${SVC}/s`, contentType: MERGE, body: { spec: { ports: [{ name: 'http', port: 81 }] } }, pick: (s: { metadata: { generation?: number } }) => s.metadata.generation ?? null },
    ],
  },
  {
    name: 'metadata: a Pod generation moves with spec, not labels', strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: `${NS}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', generation: 5 }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, pick: (p: { metadata: { generation?: number } }) => p.metadata.generation ?? null },
      { method: 'PATCH', path: `${NS}/pods/p`, contentType: MERGE, body: { metadata: { labels: { a: 'b' } } }, pick: (p: { metadata: { generation?: number } }) => p.metadata.generation ?? null },
      { method: 'PATCH', path: `${NS}/pods/p`, contentType: MERGE, body: { spec: { activeDeadlineSeconds: 5 } }, pick: (p: { metadata: { generation?: number } }) => p.metadata.generation ?? null },
    ],
  },
  {
    name: 'writes: an EndpointSlice addressType is immutable',
    category: 'writes',
    steps: [
      { method: 'POST', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'a' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }] }, setup: true },
      { method: 'PATCH', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/a', contentType: MERGE, body: { addressType: 'IPv6', endpoints: [{ addresses: ['fd00::1'] }] } },
    ],
  },
  {
    name: 'metadata: an EndpointSlice generation moves with labels too', strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'e' }, addressType: 'IPv4' }, pick: (e: { metadata: { generation?: number } }) => e.metadata.generation ?? null },
      { method: 'PATCH', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e', contentType: MERGE, body: { metadata: { labels: { a: 'b' } } }, pick: (e: { metadata: { generation?: number } }) => e.metadata.generation ?? null },
      { method: 'PATCH', path: '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/e', contentType: MERGE, body: { metadata: { annotations: { a: 'b' } } }, pick: (e: { metadata: { generation?: number } }) => e.metadata.generation ?? null },
    ],
  },
  { name: 'metadata: a ConfigMap keeps the generation a client sends', strict: true, category: 'metadata', steps: [{ method: 'POST', path: CM, body: cm('g', { generation: 5 }), setup: true }, { method: 'PATCH', path: `${CM}/g`, contentType: MERGE, body: { metadata: { generation: 9 }, data: { b: '2' } }, pick: (c: { metadata: { generation?: number } }) => c.metadata.generation ?? null }] },
  { name: 'metadata: managedFields record the field manager', strict: true, category: 'metadata', steps: [{ method: 'POST', path: `${CM}?fieldManager=conf-test`, body: cm('m'), pick: (c: { metadata: { managedFields?: unknown } }) => c.metadata.managedFields }] },
  { name: 'metadata: managedFields default manager of a JSON create', strict: true, category: 'metadata', steps: [{ method: 'POST', path: CM, body: cm('m'), pick: (c: { metadata: { managedFields?: { manager: string }[] } }) => c.metadata.managedFields?.map((f) => f.manager) }] },
  { name: 'metadata: empty labels and annotations are normalised', category: 'metadata', steps: [{ method: 'POST', path: CM, body: cm('e', { labels: {}, annotations: {} }, {}), pick: (c: Record<string, unknown>) => ({ ...c, metadata: { ...(c['metadata'] as object), managedFields: undefined } }) }] },
  { name: 'metadata: empty finalizers, ownerReferences and binaryData are dropped', category: 'metadata', steps: [{ method: 'POST', path: CM, body: { ...cm('e', { finalizers: [], ownerReferences: [], labels: null }), binaryData: {}, immutable: false }, pick: (c: { metadata: Record<string, unknown> }) => ({ ...c, metadata: Object.keys(c.metadata).filter((key) => key !== 'managedFields').sort() }) }] },
  { name: 'metadata: Service defaulting', category: 'metadata', steps: [{ method: 'POST', path: SVC, body: svc('s'), pick: (s: { spec: unknown }) => s.spec }] },
  {
    // The real registry clears a namespace sent on a cluster-scoped object (create, update, apply), no error.
    name: 'metadata: a namespace sent on a cluster-scoped object is cleared',
    category: 'metadata',
    steps: [
      { method: 'POST', path: CSRS, body: { ...csr('nsc'), metadata: { name: '{ns}-nsc', namespace: '{ns}' } }, pick: (c: { metadata: { namespace?: string } }) => c.metadata.namespace ?? null },
      { method: 'PATCH', path: csrPath('nsc'), contentType: MERGE, body: { metadata: { namespace: '{ns}', labels: { a: 'b' } } }, pick: (c: { metadata: { namespace?: string } }) => c.metadata.namespace ?? null },
      { method: 'PATCH', path: `${csrPath('nsa')}?fieldManager=conf`, contentType: APPLY, body: { ...csr('nsa'), metadata: { name: '{ns}-nsa', namespace: '{ns}' } }, pick: (c: { metadata: { namespace?: string } }) => c.metadata.namespace ?? null },
    ],
  },
  { name: 'metadata: Namespace defaulting', category: 'metadata', steps: [{ path: NS, pick: (n: { metadata: { labels?: unknown }; spec?: unknown; status?: unknown }) => ({ labels: n.metadata.labels, spec: n.spec, status: n.status }) }] },
  {
    name: 'metadata: Pod defaulting',
    category: 'metadata',
    steps: [{ method: 'POST', path: `${NS}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, pick: (p: { spec: unknown; status: unknown; metadata: { generation?: number } }) => ({ spec: p.spec, status: p.status, generation: p.metadata.generation }) }],
  },

  // ---- Endpoints and Service validation
  { name: 'endpoints: a valid Endpoints defaults protocol', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'http', port: 80 }] }]) }] },
  { name: 'endpoints: a loopback address is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }]) }] },
  { name: 'endpoints: a non-IP address is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: 'not-an-ip' }], ports: [{ port: 80 }] }]) }] },
  { name: 'endpoints: port 0 is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 0 }] }]) }] },
  { name: 'endpoints: an invalid hostname is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '10.1.2.3', hostname: 'Bad_Host' }], ports: [{ port: 80 }] }]) }] },
  { name: 'endpoints: a subset without addresses is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ ports: [{ port: 80 }] }]) }] },
  { name: 'endpoints: link-local and unspecified addresses are Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '169.254.1.1' }, { ip: '0.0.0.0' }, { ip: 'fe80::1' }], ports: [{ port: 80 }] }]), keepMessage: true }] },
  { name: 'endpoints: PUT creates a missing Endpoints', category: 'endpoints-service', steps: [{ method: 'PUT', path: `${EP}/e`, body: ep('e', [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }]) }] },
  { name: 'endpoints: two ports without names are Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: EP, body: ep('e', [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }, { port: 81 }] }]) }] },
  { name: 'service: ports are required unless headless', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', {}) }] },
  { name: 'service: headless without ports is allowed', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { clusterIP: 'None' }), pick: (s: { spec: unknown }) => s.spec }] },
  { name: 'service: ExternalName needs an externalName', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { type: 'ExternalName' }) }] },
  { name: 'service: an ExternalName Service', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { type: 'ExternalName', externalName: 'example.com' }), pick: (s: { spec: unknown }) => s.spec }] },
  { name: 'service: duplicate port names are Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81 }] }) }] },
  { name: 'service: a clusterIP that is no IP is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { clusterIP: 'nope', ports: [{ port: 80 }] }), keepMessage: true }] },
  // An address outside both servers' ranges is never the cluster IP just allocated (an address inside them once was).
  { name: 'service: clusterIPs must start with the clusterIP', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s'), setup: true }, { method: 'PATCH', path: `${SVC}/s`, contentType: MERGE, body: { spec: { clusterIPs: ['192.168.99.1'] } } }] },
  { name: 'service: a clusterIP outside the range is Invalid', category: 'endpoints-service', steps: [{ method: 'POST', path: SVC, body: svc('s', { clusterIP: '192.168.99.1', ports: [{ port: 80 }] }) }] },

  // ---- server-side apply
  { name: 'apply: creates an object', category: 'apply', steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a') }] },
  { name: 'apply: without fieldManager is refused', category: 'apply', steps: [{ method: 'PATCH', path: `${CM}/a`, contentType: APPLY, body: cm('a') }] },
  {
    name: 'apply: a second manager changing a field is a Conflict',
    category: 'apply',
    steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a'), setup: true }, { method: 'PATCH', path: `${CM}/a?fieldManager=two`, contentType: APPLY, body: cm('a', {}, { a: '2' }) }],
  },
  {
    name: 'apply: force takes the field over',
    category: 'apply',
    steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a'), setup: true }, { method: 'PATCH', path: `${CM}/a?fieldManager=two&force=true`, contentType: APPLY, body: cm('a', {}, { a: '2' }) }],
  },
  {
    name: 'apply: dropping a field removes it',
    category: 'apply',
    steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', {}, { a: '1', b: '2' }), setup: true }, { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a'), pick: (c: { data: unknown }) => c.data }],
  },
  // Not `name: y`: the real server reads YAML 1.1, where a bare `y` is the boolean true (its answer is then a 500).
  { name: 'apply: YAML body', category: 'apply', steps: [{ method: 'PATCH', path: `${CM}/yml?fieldManager=one`, contentType: APPLY, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n', pick: (c: { data: unknown }) => c.data }] },
  { name: 'apply: a Service', category: 'apply', steps: [{ method: 'PATCH', path: `${SVC}/s?fieldManager=one`, contentType: APPLY, body: svc('s'), pick: (s: { spec: unknown }) => s.spec }] },
  { name: 'apply: a body with another name is refused', category: 'apply', steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('b') }] },
  {
    name: 'apply: an Update by kubectl-edit takes the fields it changes',
    strict: true,
    category: 'apply',
    steps: [
      { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', {}, { a: '1', b: '2' }), setup: true },
      { method: 'PATCH', path: `${CM}/a?fieldManager=kubectl-edit`, contentType: MERGE, body: { data: { a: '5', c: '3' } }, pick: managedFields },
    ],
  },
  {
    name: 'apply: a conflict with an Update manager names it',
    category: 'apply',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=writer`, body: cm('a'), setup: true },
      { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', {}, { a: '2' }) },
    ],
  },
  {
    name: 'apply: the same value applied by two managers is shared',
    strict: true,
    category: 'apply',
    steps: [
      { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a'), setup: true },
      { method: 'PATCH', path: `${CM}/a?fieldManager=two`, contentType: APPLY, body: cm('a', {}, { a: '1', z: '9' }), pick: managedFields },
    ],
  },
  {
    name: 'apply: a field another manager shares is kept when dropped',
    category: 'apply',
    steps: [
      { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', {}, { a: '1', b: '2' }), setup: true },
      { method: 'PATCH', path: `${CM}/a?fieldManager=two`, contentType: APPLY, body: cm('a', {}, { b: '2' }), setup: true },
      { method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', {}, {}), pick: (c: { data: unknown }) => c.data },
    ],
  },
  {
    name: 'apply: dryRun answers the object and stores nothing',
    category: 'apply',
    steps: [
      { method: 'PATCH', path: `${CM}/d?fieldManager=one&dryRun=All`, contentType: APPLY, body: cm('d') },
      { path: `${CM}/d`, pick: statusOnly },
    ],
  },
  {
    name: 'apply: Service ports are owned by port and protocol',
    strict: true,
    category: 'apply',
    steps: [
      { method: 'PATCH', path: `${SVC}/s?fieldManager=one`, contentType: APPLY, body: svc('s', { ports: [{ name: 'http', port: 80 }], selector: { app: 'x' } }), setup: true },
      { method: 'PATCH', path: `${SVC}/s?fieldManager=two`, contentType: APPLY, body: svc('s', { ports: [{ name: 'http', port: 80, targetPort: 8080 }] }), pick: managedFields },
    ],
  },
  {
    name: 'apply: Pod containers are owned by name',
    strict: true,
    category: 'apply',
    steps: [
      {
        method: 'PATCH',
        path: `${NS}/pods/p?fieldManager=one`,
        contentType: APPLY,
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
        pick: managedFields,
      },
    ],
  },
  { name: 'apply: force on another patch type is Invalid', category: 'apply', steps: [{ method: 'POST', path: CM, body: cm('a'), setup: true }, { method: 'PATCH', path: `${CM}/a?fieldManager=x&force=true`, contentType: MERGE, body: { data: { b: '1' } } }] },
  {
    name: 'apply: managedFields in the applied configuration are refused',
    category: 'apply',
    steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: cm('a', { managedFields: [{ manager: 'x', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }] }) }],
  },
  { name: 'apply: a configuration of another apiVersion is refused', category: 'apply', steps: [{ method: 'PATCH', path: `${CM}/a?fieldManager=one`, contentType: APPLY, body: { ...cm('a'), apiVersion: 'v2' } }] },
  {
    name: 'metadata: a PUT by another manager takes the fields it changes',
    strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=creator`, body: cm('m', {}, { a: '1', b: '2' }), setup: true },
      { method: 'PUT', path: `${CM}/m?fieldManager=other`, body: cm('m', { labels: { x: 'y' } }, { a: '5', c: '7' }), pick: managedFields },
    ],
  },
  {
    name: 'metadata: managedFields [{}] resets them',
    strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=creator`, body: cm('m'), setup: true },
      { method: 'PATCH', path: `${CM}/m?fieldManager=x`, contentType: MERGE, body: { metadata: { managedFields: [{}] } }, pick: managedFields },
    ],
  },
  {
    name: 'metadata: managedFields set by the client replace the recorded ones',
    strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=creator`, body: cm('m'), setup: true },
      {
        method: 'PATCH',
        path: `${CM}/m?fieldManager=x`,
        contentType: MERGE,
        body: { metadata: { managedFields: [{ manager: 'mine', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] } },
        pick: managedFields,
      },
    ],
  },
  {
    name: 'metadata: past 10 Update managers the oldest merge into ancient-changes',
    strict: true,
    category: 'metadata',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=m00`, body: cm('m', {}, { k00: '0' }), setup: true },
      // Managers named in the order they write: the oldest are the first by name too, whatever second each write falls in.
      ...Array.from({ length: 10 }, (_, index): Step => {
        const id = String(index + 1).padStart(2, '0');
        return { method: 'PATCH', path: `${CM}/m?fieldManager=m${id}`, contentType: MERGE, body: { data: { [`k${id}`]: id } }, setup: true };
      }),
      { path: `${CM}/m`, pick: (c: { metadata: { managedFields: { manager: string; fieldsV1: unknown }[] } }) => c.metadata.managedFields.map((entry) => [entry.manager, entry.fieldsV1]).sort() },
    ],
  },
  {
    name: 'metadata: a Service create owns its defaults, not its allocated cluster IP',
    strict: true,
    category: 'metadata',
    steps: [{ method: 'POST', path: `${SVC}?fieldManager=creator`, body: svc('s', { ports: [{ name: 'http', port: 80 }], selector: { app: 'x' } }), pick: managedFields }],
  },
  { name: 'metadata: the User-Agent names the default manager', strict: true, category: 'metadata', steps: [{ method: 'POST', path: CM, body: cm('m'), headers: { 'user-agent': 'my-agent/1.2 (linux)' }, pick: managedFields }] },
  { name: 'metadata: a fieldManager over 128 bytes is Invalid', category: 'metadata', steps: [{ method: 'POST', path: `${CM}?fieldManager=${'x'.repeat(129)}`, body: cm('m') }] },

  // ---- certificates (CertificateSigningRequests)
  { name: 'csr: create clears status and records the requester', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('c', { username: 'root', uid: 'forged', groups: ['system:masters'] }, { status: { conditions: [APPROVED] } }), pick: withoutRequester }] },
  { name: 'csr: a name kubernetes does not restrict', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: { ...csr('x'), metadata: { name: '{ns}-My_CSR.x' } }, pick: (o: { metadata?: { name?: string } }) => o.metadata?.name }] },
  { name: 'csr: get and list', category: 'certificates', steps: [createCsr('g'), { path: csrPath('g'), pick: withoutRequester }, { path: `${CSRS}?fieldSelector=metadata.name%3D{ns}-g`, pick: names }] },
  { name: 'csr: list by spec.signerName', category: 'certificates', steps: [createCsr('s'), { path: `${CSRS}?fieldSelector=spec.signerName%3Dexample.com%2Fconformance,metadata.name%3D{ns}-s`, pick: names }] },
  { name: 'csr: a request that is not a PEM CSR is Invalid', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('p', { request: base64('not a request') }) }] },
  { name: 'csr: a CSR whose signature does not verify is Invalid', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('v', { request: base64(CSR_PEM.replace('7cQS', '7cQT')) }) }] },
  { name: 'csr: a signed CSR whose requested extension has no value is Invalid', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('h', { request: base64(EXTENSION_WITHOUT_VALUE_CSR_PEM) }) }] },
  { name: 'csr: attributes that do not parse are passed over', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('o', { request: base64(ODD_ATTRIBUTES_CSR_PEM) }), pick: withoutRequester }] },
  { name: 'csr: usages are required', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('u', { usages: [] }) }] },
  { name: 'csr: unknown and duplicate usages', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('d', { usages: ['client auth', 'flying', 'client auth'] }) }] },
  { name: 'csr: signerName is required', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('n', { signerName: '' }) }] },
  { name: 'csr: the legacy signerName is refused', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('l', { signerName: 'kubernetes.io/legacy-unknown' }) }] },
  { name: 'csr: a signerName that is not domain/path', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('q', { signerName: 'conformance' }) }, { method: 'POST', path: CSRS, body: csr('r', { signerName: 'nodots/x' }) }] },
  { name: 'csr: expirationSeconds under 600 is Invalid', category: 'certificates', steps: [{ method: 'POST', path: CSRS, body: csr('e', { expirationSeconds: 599 }) }, { method: 'POST', path: CSRS, body: csr('f', { expirationSeconds: 600 }), pick: (o: { spec?: { expirationSeconds?: number } }) => o.spec?.expirationSeconds }] },
  { name: 'csr: an update keeps spec and status', category: 'certificates', steps: [createCsr('k'), { method: 'PATCH', path: csrPath('k'), contentType: MERGE, body: { metadata: { labels: { a: 'b' } }, spec: { signerName: 'example.com/other' }, status: { conditions: [APPROVED] } }, pick: withoutRequester }] },
  { name: 'csr: /approval adds Approved with its times', category: 'certificates', steps: [createCsr('a'), { method: 'PATCH', path: csrPath('a', 'approval'), contentType: MERGE, body: { status: { conditions: [APPROVED] } }, pick: withoutRequester }] },
  { name: 'csr: /approval by PUT as kubectl certificate approve', category: 'certificates', steps: [createCsr('w'), { method: 'PUT', path: csrPath('w', 'approval'), body: { ...csr('w'), status: { conditions: [APPROVED] } }, pick: withoutRequester }] },
  { name: 'csr: /status may not add Approved', category: 'certificates', steps: [createCsr('b'), { method: 'PATCH', path: csrPath('b', 'status'), contentType: MERGE, body: { status: { conditions: [APPROVED] } } }] },
  { name: 'csr: Approved and Denied are exclusive', category: 'certificates', steps: [createCsr('x'), { method: 'PATCH', path: csrPath('x', 'approval'), contentType: MERGE, body: { status: { conditions: [APPROVED, { type: 'Denied', status: 'True' }] } } }] },
  { name: 'csr: Approved may only be True', category: 'certificates', steps: [createCsr('t'), { method: 'PATCH', path: csrPath('t', 'approval'), contentType: MERGE, body: { status: { conditions: [{ type: 'Approved', status: 'False' }] } } }] },
  { name: 'csr: /approval may not remove Approved', category: 'certificates', steps: [createCsr('m'), { method: 'PATCH', path: csrPath('m', 'approval'), contentType: MERGE, body: { status: { conditions: [APPROVED] } }, setup: true }, { method: 'PATCH', path: csrPath('m', 'approval'), contentType: MERGE, body: { status: { conditions: [] } } }] },
  { name: 'csr: /approval writes the labels and annotations it is sent (the approval strategy keeps only spec and the certificate)', category: 'certificates', steps: [createCsr('l'), { method: 'PATCH', path: csrPath('l', 'approval'), contentType: MERGE, body: { metadata: { labels: { approved: 'by-conformance' }, annotations: { why: 'test' } }, status: { conditions: [APPROVED] } }, pick: withoutRequester }] },
  { name: 'csr: /status writes the labels it is sent', category: 'certificates', steps: [createCsr('n'), { method: 'PATCH', path: csrPath('n', 'status'), contentType: MERGE, body: { metadata: { labels: { signed: 'no' } }, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'Test', message: 'conformance' }] } }, pick: withoutRequester }] },
  { name: 'csr: /approval leaves status.certificate alone', category: 'certificates', steps: [createCsr('z'), { method: 'PATCH', path: csrPath('z', 'approval'), contentType: MERGE, body: { status: { conditions: [APPROVED], certificate: base64(CERTIFICATE_PEM) } }, pick: withoutRequester }] },
  { name: 'csr: /status sets the certificate once', category: 'certificates', steps: [createCsr('i'), { method: 'PATCH', path: csrPath('i', 'status'), contentType: MERGE, body: { status: { certificate: base64(CERTIFICATE_PEM) } }, pick: withoutRequester }, { method: 'PATCH', path: csrPath('i', 'status'), contentType: MERGE, body: { status: { certificate: base64(`${CERTIFICATE_PEM}${CERTIFICATE_PEM}`) } } }] },
  { name: 'csr: status.certificate must hold CERTIFICATE blocks', category: 'certificates', steps: [createCsr('j'), { method: 'PATCH', path: csrPath('j', 'status'), contentType: MERGE, body: { status: { certificate: base64('nonsense') } } }, { method: 'PATCH', path: csrPath('j', 'status'), contentType: MERGE, body: { status: { certificate: base64(CSR_PEM) } } }] },
  { name: 'csr: a main update may not set the certificate', category: 'certificates', steps: [createCsr('h'), { method: 'PATCH', path: csrPath('h'), contentType: MERGE, body: { status: { certificate: base64(CERTIFICATE_PEM) } }, pick: withoutRequester }] },
  { name: 'csr: Table columns', category: 'certificates', steps: [createCsr('o', { expirationSeconds: 3600 }), { path: csrPath('o'), headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, pick: (t: { columnDefinitions?: { name: string; type: string }[]; rows?: { cells: unknown[] }[] }) => ({ columns: t.columnDefinitions?.map(({ name, type }) => ({ name, type })), cells: t.rows?.map((row) => [row.cells[0], ...row.cells.slice(2, 3), ...row.cells.slice(4)]) }) }] },
  { name: 'csr: delete answers a Success Status', category: 'certificates', steps: [createCsr('del'), { method: 'DELETE', path: csrPath('del') }, { path: csrPath('del') }] },

  // ---- RBAC kinds (stored; the devcluster's authorizer does not read them)
  {
    name: 'rbac: a SelfSubjectRulesReview lists the caller’s rules in a namespace (the suite’s client may do everything)',
    category: 'rbac',
    steps: [
      {
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: '{ns}' } },
        pick: (review: { kind: string; spec: unknown; status: { resourceRules: Array<{ verbs: string[]; apiGroups: string[]; resources: string[] }> } }) => ({
          kind: review.kind,
          spec: review.spec,
          everything: review.status.resourceRules.some((rule) => rule.verbs.includes('*') && rule.apiGroups.includes('*') && rule.resources.includes('*')),
        }),
      },
    ],
  },
  { name: 'rbac: a SelfSubjectRulesReview without a namespace is refused', category: 'rbac', steps: [{ method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} } }] },
  { name: 'rbac: a Role is stored with its rules', category: 'rbac', steps: [{ method: 'POST', path: ROLES, body: role('r') }, { path: `${ROLES}/r` }] },
  { name: 'rbac: a rule needs verbs, API groups and resources', category: 'rbac', steps: [{ method: 'POST', path: ROLES, body: role('r', [{}, { verbs: ['get'], resources: ['pods'] }]) }] },
  { name: 'rbac: a Role may not name non-resource URLs', category: 'rbac', steps: [{ method: 'POST', path: ROLES, body: role('r', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]) }] },
  {
    name: 'rbac: a ClusterRole may name non-resource URLs, not with resources',
    category: 'rbac',
    steps: [
      { method: 'POST', path: CLUSTER_ROLES, body: { ...role('{ns}-ok', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]), kind: 'ClusterRole' } },
      { method: 'POST', path: CLUSTER_ROLES, body: { ...role('{ns}-mixed', [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }]), kind: 'ClusterRole' } },
      { path: `${CLUSTER_ROLES}?fieldSelector=metadata.name%3D{ns}-ok`, pick: names },
    ],
  },
  { name: 'rbac: a RoleBinding defaults the API group of roleRef and of User subjects', category: 'rbac', steps: [{ method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', { kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'vcsync' }]) }] },
  { name: 'rbac: roleRef is required', category: 'rbac', steps: [{ method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', undefined) }] },
  { name: 'rbac: roleRef names a Role or ClusterRole of the RBAC group', category: 'rbac', steps: [{ method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', { apiGroup: 'example.com', kind: 'Secret', name: 'a/b' }) }] },
  {
    name: 'rbac: roleRef cannot change',
    category: 'rbac',
    steps: [
      { method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }), setup: true },
      { method: 'PATCH', path: `${ROLE_BINDINGS}/b`, contentType: MERGE, body: { roleRef: { name: 'other' } } },
      { method: 'PATCH', path: `${ROLE_BINDINGS}/b`, contentType: MERGE, body: { subjects: [{ kind: 'Group', name: 'team' }] } },
    ],
  },
  { name: 'rbac: subjects are ServiceAccounts, Users or Groups, each named', category: 'rbac', steps: [{ method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', { kind: 'Role', name: 'r' }, [{ kind: 'Robot', name: 'x' }, { kind: 'User', name: '', apiGroup: 'example.com' }, { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: 'v1' }]) }] },
  {
    name: 'rbac: a ClusterRoleBinding binds a ClusterRole to namespaced ServiceAccounts',
    category: 'rbac',
    steps: [
      { method: 'POST', path: CLUSTER_ROLE_BINDINGS, body: binding('ClusterRoleBinding', '{ns}-role', { kind: 'Role', name: 'r' }, [{ kind: 'ServiceAccount', name: 'vcsync' }]) },
      { method: 'POST', path: CLUSTER_ROLE_BINDINGS, body: binding('ClusterRoleBinding', '{ns}-ok', { kind: 'ClusterRole', name: 'view' }) },
      { method: 'DELETE', path: `${CLUSTER_ROLE_BINDINGS}/{ns}-ok` },
    ],
  },
  { name: 'rbac: a name only has to be a path segment', category: 'rbac', steps: [{ method: 'POST', path: ROLES, body: role('My_Role:x') }, { method: 'POST', path: ROLES, body: role('..') }] },
  {
    name: 'rbac: Table columns of Roles and RoleBindings',
    category: 'rbac',
    steps: [
      { method: 'POST', path: ROLES, body: role('r'), setup: true },
      { method: 'POST', path: ROLE_BINDINGS, body: binding('RoleBinding', 'b', { kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'Group', name: 'team' }, { kind: 'ServiceAccount', name: 'vcsync', namespace: 'other' }]), setup: true },
      { path: ROLES, headers: AS_TABLE, pick: tableOf((cells) => cells) },
      { path: ROLE_BINDINGS, headers: AS_TABLE, pick: tableOf((cells) => [cells[0], cells[1], ...cells.slice(3)]) },
    ],
  },

  // ---- StatefulSets (stored; no controller makes their Pods on the devcluster)
  { name: 'statefulset: create defaults spec and template, and empties status', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: { ...statefulSet('s'), status: { replicas: 3, readyReplicas: 3 } } }] },
  { name: 'statefulset: create keeps what is set', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { replicas: 0, podManagementPolicy: 'Parallel', updateStrategy: { type: 'OnDelete' }, revisionHistoryLimit: 2, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' } }) }] },
  { name: 'statefulset: selector is required', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { selector: undefined }) }] },
  { name: 'statefulset: an empty selector is Invalid', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { selector: {} }) }] },
  { name: 'statefulset: selector must match the template labels', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { selector: { matchLabels: { app: 'other' } } }) }, { method: 'POST', path: STATEFUL_SETS, body: statefulSet('t', { selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['conf'] }] } }) }] },
  { name: 'statefulset: a selector expression with a bad operator or values', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { selector: { matchLabels: LABELS, matchExpressions: [{ key: 'a', operator: 'Like' }, { key: 'b', operator: 'In' }, { key: 'c', operator: 'Exists', values: ['x'] }] } }) }] },
  { name: 'statefulset: the template restarts Always and has containers', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', {}, { spec: { restartPolicy: 'Never', containers: [] } }) }] },
  { name: 'statefulset: replicas, policies and update strategy are checked', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('s', { replicas: -1, podManagementPolicy: 'Random', updateStrategy: { type: 'Sometimes' } }) }] },
  { name: 'statefulset: a name must be a DNS label', category: 'statefulsets', steps: [{ method: 'POST', path: STATEFUL_SETS, body: statefulSet('a.b') }, { method: 'POST', path: STATEFUL_SETS, body: statefulSet('A') }] },
  {
    name: 'statefulset: only replicas, template, updateStrategy and a few more may change',
    category: 'statefulsets',
    steps: [
      createStatefulSet('s'),
      { method: 'PATCH', path: `${STATEFUL_SETS}/s`, contentType: MERGE, body: { spec: { serviceName: 'other' } } },
      { method: 'PATCH', path: `${STATEFUL_SETS}/s`, contentType: MERGE, body: { spec: { selector: { matchLabels: { app: 'conf', tier: 'x' } }, template: { metadata: { labels: { tier: 'x' } } } } } },
      { method: 'PATCH', path: `${STATEFUL_SETS}/s`, contentType: MERGE, body: { spec: { replicas: 0, minReadySeconds: 5, updateStrategy: { rollingUpdate: { partition: 1 } } } }, pick: (o: { spec?: unknown }) => o.spec },
    ],
  },
  {
    name: 'statefulset: a spec change bumps generation, a status write does not',
    category: 'statefulsets',
    strict: true,
    steps: [
      createStatefulSet('s'),
      { method: 'PATCH', path: `${STATEFUL_SETS}/s`, contentType: MERGE, body: { spec: { template: { metadata: { annotations: { rev: '2' } } } } }, pick: (o: { metadata?: { generation?: number } }) => o.metadata?.generation },
      { method: 'PATCH', path: `${STATEFUL_SETS}/s/status`, contentType: MERGE, body: { spec: { replicas: 7 }, status: { replicas: 0, collisionCount: 1 } }, pick: (o: { metadata?: { generation?: number }; spec?: { replicas?: number }; status?: { collisionCount?: number } }) => [o.metadata?.generation, o.spec?.replicas, o.status?.collisionCount] },
    ],
  },
  {
    name: 'statefulset: a status write takes the labels and annotations it is sent, and leaves the spec',
    category: 'statefulsets',
    steps: [
      createStatefulSet('s'),
      { method: 'PATCH', path: `${STATEFUL_SETS}/s/status`, contentType: MERGE, body: { metadata: { labels: { from: 'status' }, annotations: { from: 'status' } }, spec: { replicas: 9 }, status: { replicas: 0, collisionCount: 2 } }, pick: (o: { metadata?: { labels?: unknown; annotations?: unknown }; spec?: { replicas?: number }; status?: { collisionCount?: number } }) => [o.metadata?.labels, o.metadata?.annotations, o.spec?.replicas, o.status?.collisionCount] },
    ],
  },
  {
    name: 'statefulset: a strategic merge patch adds a container by name (as sidecar.yaml does)',
    category: 'statefulsets',
    steps: [
      createStatefulSet('s'),
      { method: 'PATCH', path: `${STATEFUL_SETS}/s`, contentType: STRATEGIC, body: { spec: { template: { spec: { containers: [{ name: 'side', image: 'registry.example/side:2.0', ports: [{ containerPort: 8443 }] }], volumes: [{ name: 'v', emptyDir: {} }] } } } }, pick: (o: { spec?: { template?: unknown } }) => o.spec?.template },
    ],
  },
  { name: 'statefulset: get and list without status', category: 'statefulsets', steps: [createStatefulSet('s'), { path: `${STATEFUL_SETS}/s`, pick: withoutStatus }, { path: `${STATEFUL_SETS}?fieldSelector=metadata.name%3Ds`, pick: names }] },
  { name: 'statefulset: Table columns', category: 'statefulsets', steps: [createStatefulSet('s'), { path: STATEFUL_SETS, headers: AS_TABLE, pick: tableOf((cells) => [cells[0], cells[1], ...cells.slice(3)]) }] },
  { name: 'statefulset: delete answers a Success Status', category: 'statefulsets', steps: [createStatefulSet('s'), { method: 'DELETE', path: `${STATEFUL_SETS}/s` }, { path: `${STATEFUL_SETS}/s` }] },

  // ---- discovery and OpenAPI
  { name: 'discovery: /api', category: 'discovery', namespace: false, steps: [{ path: '/api', pick: (d: { kind: string; versions: unknown }) => ({ kind: d.kind, versions: d.versions }) }] },
  {
    name: 'discovery: /apis lists the served groups',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/apis', pick: (d: { kind: string; groups: { name: string; preferredVersion: unknown }[] }) => ({ kind: d.kind, groups: d.groups.filter((g) => ['coordination.k8s.io', 'discovery.k8s.io'].includes(g.name)) }) }],
  },
  ...['configmaps', 'endpoints', 'services', 'namespaces', 'pods', 'secrets'].map((plural): ConformanceCase => ({
    name: `discovery: /api/v1 ${plural}`,
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/api/v1', pick: (d: { resources: { name: string; verbs: string[] }[] }) => d.resources.filter((r) => r.name === plural).map((r) => ({ ...r, verbs: [...r.verbs].sort(), storageVersionHash: undefined })) }],
  })),
  {
    name: 'discovery: /apis/discovery.k8s.io/v1',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/apis/discovery.k8s.io/v1', pick: (d: { resources: { name: string; verbs: string[] }[] }) => d.resources.map((r) => ({ ...r, verbs: [...r.verbs].sort(), storageVersionHash: undefined })) }],
  },
  {
    name: 'discovery: /apis/certificates.k8s.io/v1',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/apis/certificates.k8s.io/v1', pick: (d: { resources: { name: string; verbs: string[] }[] }) => d.resources.map((r) => ({ ...r, verbs: [...r.verbs].sort(), storageVersionHash: undefined })) }],
  },
  {
    name: 'discovery: /apis/rbac.authorization.k8s.io/v1',
    category: 'discovery',
    namespace: false,
    steps: [{ path: RBAC_V1, pick: discoveryOf(() => true) }],
  },
  {
    name: 'discovery: /apis/apps/v1 statefulsets',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/apis/apps/v1', pick: discoveryOf((name) => name.startsWith('statefulsets')) }],
  },
  { name: 'discovery: /version fields', category: 'discovery', namespace: false, steps: [{ path: '/version', pick: (v: Record<string, unknown>) => Object.keys(v).sort() }] },
  {
    name: 'openapi: v2 ConfigMap definition',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/openapi/v2', pick: (o: { definitions: Record<string, { properties?: Record<string, unknown>; required?: unknown }> }) => { const d = o.definitions['io.k8s.api.core.v1.ConfigMap']; return { properties: Object.keys(d?.properties ?? {}).sort(), required: d?.required }; } }],
  },
  {
    name: 'openapi: v2 ServicePort definition',
    category: 'discovery',
    namespace: false,
    steps: [{ path: '/openapi/v2', pick: (o: { definitions: Record<string, unknown> }) => o.definitions['io.k8s.api.core.v1.ServicePort'] }],
  },
  { name: 'openapi: v3 ConfigMap schema', category: 'discovery', namespace: false, steps: [{ path: '/openapi/v3/api/v1', pick: (o: { components: { schemas: Record<string, unknown> } }) => o.components.schemas['io.k8s.api.core.v1.ConfigMap'] }] },
  { name: 'openapi: v3 index names api/v1', category: 'discovery', namespace: false, steps: [{ path: '/openapi/v3', pick: (o: { paths: Record<string, unknown> }) => ['api/v1', 'apis/discovery.k8s.io/v1'].map((p) => p in o.paths) }] },

  // ---- errors
  { name: 'error: unknown resource is NotFound', category: 'errors', steps: [{ path: `${NS}/widgets` }] },
  { name: 'error: unknown group is NotFound', category: 'errors', namespace: false, steps: [{ path: '/apis/nothing.example.com/v1/things' }] },
  { name: 'error: a missing object is NotFound', category: 'errors', steps: [{ path: `${CM}/missing` }] },
  { name: 'error: malformed JSON is BadRequest', category: 'errors', steps: [{ method: 'POST', path: CM, body: '{"apiVersion":' }] },
  { name: 'error: a body of another kind is BadRequest', category: 'errors', steps: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } }] },
  { name: 'error: an unsupported patch content type', category: 'errors', steps: [{ method: 'POST', path: CM, body: cm('c'), setup: true }, { method: 'PATCH', path: `${CM}/c`, contentType: 'text/plain', body: 'x' }] },
  { name: 'error: PATCH on a collection is MethodNotAllowed', strict: true, category: 'errors', steps: [{ method: 'PATCH', path: CM, contentType: MERGE, body: {} }] },
  { name: 'error: create in a missing namespace is NotFound', category: 'errors', namespace: false, steps: [{ method: 'POST', path: '/api/v1/namespaces/conf-missing/configmaps', body: cm('c') }] },
  { name: 'error: a namespaced resource without a namespace name in a body', category: 'errors', steps: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } }] },
  { name: 'error: Status shape of NotFound with message', strict: true, category: 'errors', steps: [{ path: `${CM}/missing`, keepMessage: true }] },
  // Just past the limit: kube-apiserver reads 3 MiB, answers, and drops at most 256 KiB more
  // before it closes; a larger body is reset under a loaded client (ECONNRESET, seen in CI).
  { name: 'error: a request body past 3 MiB is RequestEntityTooLarge', category: 'errors', steps: [{ method: 'POST', path: CM, body: { ...cm('c'), data: { a: 'x'.repeat(3 * 1024 * 1024 + 64 * 1024) } } }] },
  // A small patch cannot grow an object without bound (the limits of k8s.io/apiserver's patch handler).
  {
    name: 'error: a JSON patch of more than 10,000 operations is RequestEntityTooLarge',
    category: 'errors',
    steps: [
      { method: 'POST', path: CM, body: cm('c'), setup: true },
      { method: 'PATCH', path: `${CM}/c`, contentType: JSON_PATCH, body: Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/a', value: '1' })), keepMessage: true },
    ],
  },
  {
    name: 'error: a JSON patch whose copies add past 3 MiB is Invalid, dry run too',
    category: 'errors',
    steps: [
      { method: 'POST', path: CM, body: cm('c', { annotations: { a: 'b' } }), setup: true },
      {
        method: 'PATCH',
        path: `${CM}/c?dryRun=All`,
        contentType: JSON_PATCH,
        // Copies of 0.4, 0.8, 1.6 and 3.2 MB: past the limit at the fourth however add values count.
        body: [{ op: 'add', path: '/metadata/annotations/d', value: 'x'.repeat(400 * 1024) }, ...[0, 1, 2, 3].map((copy) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/c${copy}` }))],
      },
    ],
  },
  {
    name: 'error: annotations past 256 KiB in all are Invalid',
    category: 'errors',
    steps: [
      { method: 'POST', path: CM, body: cm('c'), setup: true },
      { method: 'PATCH', path: `${CM}/c`, contentType: MERGE, body: { metadata: { annotations: { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(60 * 1024) } } } },
    ],
  },
];
