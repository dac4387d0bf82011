/**
 * The seeded generator of the management API's hostile-input test: thousands of
 * malformed, oversized, unauthenticated or unauthorised requests, each classified up front by
 * what a Kubernetes API server must answer. Deterministic: the same seed yields the same requests.
 */

import { SeededRandom } from '../../support/seeded-random.js';

/** The management base path every generated path is under (unless it deliberately leaves it). */
export const BASE = '/kubernetes/management';
const GROUP_VERSION = 'management.loft.sh/v1';
const KEYS = `${BASE}/apis/${GROUP_VERSION}/ownedaccesskeys`;

/** What the server must answer a generated request. */
export type Expectation =
  /** A 4xx Status; `status` when exactly one code is right. */
  | { kind: 'refused'; status?: number }
  /**
   * A read (GET/HEAD, nothing written) that a Kubernetes server may serve (2xx) or refuse (4xx),
   * e.g. a dot-segment path that resolves to discovery, `limit=-1`.
   */
  | { kind: 'read' };

/** One generated request. Either sent by an HTTP client (`method`, `path`, `headers`, `body`) or as `raw` bytes on a TLS connection. */
export interface HostileRequest {
  /** The class of hostility and the variant, e.g. `yaml:billion-laughs`. */
  label: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Bytes to write as they are (requests an HTTP client refuses to send). */
  raw?: Buffer;
  /** A body sent on its own connection past what the server needs: it must answer and stop reading within its bounds. */
  stream?: StreamedBody;
  expect: Expectation;
}

/**
 * A request whose body the client keeps sending whatever the server answers: `sendBytes` of a
 * `declaredBytes` body in `chunkBytes` pieces, `paceMs` apart (0: as fast as the connection takes
 * them). Every declared size is past the 3 MiB limit, so no route reads it all.
 */
export interface StreamedBody {
  declaredBytes: number;
  sendBytes: number;
  chunkBytes: number;
  paceMs: number;
}

/** The keys the requests are sent with; `victim` is an existing key object of another user than `owner`'s. */
export interface HostileKeys {
  /** The bootstrap admin key. */
  admin: string;
  /** A non-admin key of user `mallory`, without scope (manages only mallory's keys). */
  owner: string;
  /** A key of user `oscar` scoped to the read-only `platformCLI` role. */
  scoped: string;
  disabled: string;
  expired: string;
  /** Name of a key object of user `victor`. */
  victim: string;
  /** Name of a key object of user `mallory`. */
  own: string;
}

const KEY_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A valid OwnedAccessKey body for `user` (valid for an admin: only who sends it can make it hostile). */
export function validKeyBody(name: string, user = 'victor'): Record<string, unknown> {
  return { apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', metadata: { name }, spec: { user, displayName: 'hostile' } };
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Paths that a GET may legitimately serve (discovery, OpenAPI, version, health, the key collection). */
function isServedReadPath(path: string, keys: HostileKeys): boolean {
  let pathname: string;
  try {
    pathname = new URL(path, 'https://server.invalid').pathname;
  } catch {
    return false;
  }
  if (!pathname.startsWith(`${BASE}/`)) return false;
  const rest = pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  const served = new Set([
    '/api',
    '/apis',
    '/version',
    '/healthz',
    '/readyz',
    '/livez',
    '/openapi/v2',
    '/openapi/v3',
    `/apis/management.loft.sh`,
    `/apis/${GROUP_VERSION}`,
    `/apis/${GROUP_VERSION}/ownedaccesskeys`,
  ]);
  if (served.has(rest) || rest.startsWith('/openapi/v3/') || rest.startsWith('/api/')) return true;
  return [keys.victim, keys.own].some((name) => rest === `/apis/${GROUP_VERSION}/ownedaccesskeys/${name}` || rest === `/apis/${GROUP_VERSION}/ownedaccesskeys/${name}/status`);
}

/** An Authorization header that authenticates nobody, with its label. */
function failingAuthorization(random: SeededRandom, keys: HostileKeys): [string, string | string[] | undefined] {
  const flipped = `${keys.admin.slice(0, -1)}${keys.admin.endsWith('A') ? 'B' : 'A'}`;
  const variants: Array<[string, string | string[] | undefined]> = [
    ['none', undefined],
    ['empty', ''],
    ['bearer-only', 'Bearer'],
    ['bearer-space', 'Bearer  '],
    ['basic', `Basic ${Buffer.from('admin:admin').toString('base64')}`],
    ['token-scheme', `Token ${keys.admin}`],
    ['no-scheme', keys.admin],
    ['two-tokens', `Bearer ${keys.admin} ${keys.admin}`],
    ['tab', `Bearer\t${keys.admin}`],
    ['huge', `Bearer ${random.chars(KEY_CHARS, 8000)}`],
    ['latin1', `Bearer ${'\u00ff\u00e9'.repeat(20)}`],
    ['several', [`Bearer ${random.chars(KEY_CHARS, 43)}`, `Bearer ${keys.admin}`]],
    ['unknown', `Bearer ${random.chars(KEY_CHARS, 43)}`],
    ['flipped-admin', `Bearer ${flipped}`],
    ['admin-suffix', `Bearer ${keys.admin}x`],
    ['admin-prefix', `Bearer ${keys.admin.slice(0, 42)}`],
    ['disabled', `Bearer ${keys.disabled}`],
    ['expired', `Bearer ${keys.expired}`],
    ['hash-as-key', `Bearer hmac-sha256:${random.chars('0123456789abcdef', 64)}`],
  ];
  return random.pick(variants);
}

/** A body made invalid (each a way Kubernetes refuses the object: 4xx), with its label. */
function invalidObject(random: SeededRandom, name: string): [string, unknown, string] {
  const base = validKeyBody(name);
  const spec = base['spec'] as Record<string, unknown>;
  const meta = base['metadata'] as Record<string, unknown>;
  const with_ = (patch: Record<string, unknown>): Record<string, unknown> => ({ ...base, ...patch });
  const withMeta = (patch: Record<string, unknown>): Record<string, unknown> => ({ ...base, metadata: { ...meta, ...patch } });
  const withSpec = (patch: Record<string, unknown>): Record<string, unknown> => ({ ...base, spec: { ...spec, ...patch } });
  const hash = `hmac-sha256:${random.chars('0123456789abcdef', 64)}`;
  const variants: Array<[string, unknown, string?]> = [
    ['apiVersion:v1', with_({ apiVersion: 'v1' })],
    ['apiVersion:v2', with_({ apiVersion: 'management.loft.sh/v2' })],
    ['apiVersion:other-group', with_({ apiVersion: 'management.devsy.sh/v1' })],
    ['apiVersion:number', with_({ apiVersion: 42 })],
    ['kind:Secret', with_({ kind: 'Secret' })],
    ['kind:lowercase', with_({ kind: 'ownedaccesskey' })],
    ['kind:List', with_({ kind: 'OwnedAccessKeyList' })],
    ['kind:number', with_({ kind: 7 })],
    ['name:uppercase', withMeta({ name: `UP${name}` })],
    ['name:underscore', withMeta({ name: `a_${name}` })],
    ['name:leading-dash', withMeta({ name: `-${name}` })],
    ['name:too-long', withMeta({ name: 'a'.repeat(254) })],
    ['name:dot-dot', withMeta({ name: '..' })],
    ['name:slash', withMeta({ name: `a/${name}` })],
    ['name:unicode', withMeta({ name: `\u00fcn\u00ef-${name}` })],
    ['name:missing', { ...base, metadata: {} }],
    ['name:number', withMeta({ name: 5 })],
    ['generateName:invalid', { ...base, metadata: { generateName: 'BAD_' } }],
    ['metadata:string', with_({ metadata: 'x' })],
    ['metadata:array', with_({ metadata: [name] })],
    ['labels:bad-key', withMeta({ labels: { 'bad key!': 'v' } })],
    ['labels:bad-value', withMeta({ labels: { a: 'bad value!' } })],
    ['labels:long-key', withMeta({ labels: { ['x'.repeat(64)]: 'v' } })],
    ['labels:string', withMeta({ labels: 'a=b' })],
    ['labels:number-value', withMeta({ labels: { a: 5 } })],
    ['annotations:empty-key', withMeta({ annotations: { '': 'v' } })],
    ['annotations:number', withMeta({ annotations: { a: 5 } })],
    ['ownerRefs:empty', withMeta({ ownerReferences: [{}] })],
    ['ownerRefs:no-uid', withMeta({ ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '' }] })],
    [
      'ownerRefs:two-controllers',
      withMeta({
        ownerReferences: [
          { apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', name: 'a', uid: '00000000-0000-0000-0000-000000000001', controller: true },
          { apiVersion: GROUP_VERSION, kind: 'OwnedAccessKey', name: 'b', uid: '00000000-0000-0000-0000-000000000002', controller: true },
        ],
      }),
    ],
    ['ownerRefs:string', withMeta({ ownerReferences: 'x' })],
    ['finalizers:invalid', withMeta({ finalizers: ['bad finalizer!'] })],
    ['finalizers:string', withMeta({ finalizers: 'x' })],
    ['creationTimestamp:junk', withMeta({ creationTimestamp: 'yesterday' })],
    ['resourceVersion:on-create', withMeta({ resourceVersion: '12' }), 'create-only'],
    ['spec:string', with_({ spec: 'x' })],
    ['spec:array', with_({ spec: [] })],
    ['spec:no-owner', with_({ spec: { displayName: 'nobody' } })],
    ['spec.user:number', withSpec({ user: 5 })],
    ['spec.user:object', withSpec({ user: {} })],
    ['spec.ttl:string', withSpec({ ttl: 'abc' })],
    ['spec.disabled:string', withSpec({ disabled: 'yes' })],
    ['spec.groups:string', withSpec({ groups: 'a' })],
    ['spec.groups:numbers', withSpec({ groups: [5] })],
    ['spec.scope:string', withSpec({ scope: 'all' })],
    ['spec.scope:unknown-role', withSpec({ scope: { roles: [{ role: 'superuser' }] } })],
    ['spec.key:number', withSpec({ key: 5 })],
    ['spec.key:weak', withSpec({ key: 'short' })],
    ['spec.key:hash', withSpec({ key: hash })],
    ['spec.key:hash+status', { ...withSpec({ key: hash }), status: { lastActivity: '2020-01-01T00:00:00Z' } }],
    ['spec.identity:string', withSpec({ identity: 'x' })],
    ['status:junk+invalid-name', { ...withMeta({ name: `UP${name}` }), status: { lastActivity: 'now' } }],
  ];
  const [label, body, only] = random.pick(variants);
  return [label, body, only ?? 'any'];
}

/** A request body that is not a valid object in its media type, with its label and media type. */
function malformedBody(random: SeededRandom, name: string): [string, Buffer, string] {
  const valid = JSON.stringify(validKeyBody(name));
  const yamlValid = `apiVersion: ${GROUP_VERSION}\nkind: OwnedAccessKey\nmetadata:\n  name: ${name}\nspec:\n  user: victor\n`;
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < 9; level += 1) laughs.push(`${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9).fill(`*${String.fromCharCode(96 + level)}`).join(',')}]`);
  const variants: Array<() => [string, string | Buffer, string]> = [
    () => {
      let cut = valid.slice(0, 1 + random.int(valid.length - 2));
      if (isJson(cut)) cut += '{';
      return ['json:truncated', cut, 'application/json'];
    },
    () => {
      const bytes = Buffer.from(valid);
      const at = random.int(bytes.length);
      bytes[at] = random.pick([0x7b, 0x7d, 0x22, 0x2c, 0x3a, 0x5b, 0x00, 0xff]);
      return ['json:flipped-byte', isJson(bytes.toString('utf8')) ? `${bytes.toString('utf8')}}` : bytes, 'application/json'];
    },
    () => [random.pick(['json:trailing-comma', 'json:single-quotes', 'json:comment', 'json:nan', 'json:garbage-after']), random.pick([`{"a":1,}`, `{'a':1}`, `{/*c*/"a":1}`, `{"a":NaN}`, `${valid}xyz`]), 'application/json'],
    () => ['json:bom', `\ufeff${valid}`, 'application/json'],
    () => [`json:root-${random.pick(['array', 'number', 'string', 'null', 'true'])}`, random.pick(['[]', '42', '"s"', 'null', 'true']), 'application/json'],
    () => ['json:nested-150', `{"apiVersion":"${GROUP_VERSION}","kind":"OwnedAccessKey","metadata":{"name":"${name}"},"spec":{"user":"v","scope":${'{"a":'.repeat(150)}1${'}'.repeat(150)}}}`, 'application/json'],
    () => ['json:nested-arrays-100k', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'application/json'],
    () => ['json:unclosed-100k', '{"a":'.repeat(20_000), 'application/json'],
    () => ['json:merge-patch-nested', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'application/merge-patch+json'],
    () => ['yaml:invalid-mapping', 'a: b: c\n', 'application/yaml'],
    () => ['yaml:unclosed-flow', `${yamlValid}extra: [unclosed\n`, 'application/yaml'],
    () => ['yaml:tab-indent', `metadata:\n\tname: ${name}\n`, 'application/yaml'],
    () => ['yaml:billion-laughs', `${laughs.join('\n')}\n`, 'application/yaml'],
    () => ['yaml:alias-bomb-in-object', `${yamlValid}  groups: &g [${Array(50).fill('"x"').join(',')}]\n  displayName: x\nx1: &x1 [${Array(60).fill('*g').join(',')}]\nx2: [${Array(60).fill('*x1').join(',')}]\n`, 'application/yaml'],
    () => ['yaml:alias-before-anchor', `${yamlValid}  displayName: *missing\n`, 'application/yaml'],
    () => ['yaml:multiple-documents', `${yamlValid}---\n${yamlValid.replace(name, `${name}-second`)}`, 'application/yaml'],
    () => ['yaml:js-function-root', '!!js/function "function () { return process.exit(1) }"\n', 'application/yaml'],
    () => ['yaml:js-undefined-root', '--- !!js/undefined ~\n', 'application/yaml'],
    () => ['yaml:tagged-metadata', yamlValid.replace('metadata:\n  name: ' + name, 'metadata: !!js/function "function () {}"'), 'application/yaml'],
    () => ['yaml:binary-root', '!!binary aGVsbG8=\n', 'application/yaml'],
    () => ['yaml:set-as-groups', `${yamlValid}  groups: !!set {a, b}\n`, 'application/yaml'],
    () => ['yaml:binary-spec', yamlValid.replace('spec:\n  user: victor\n', 'spec: !!binary aGVsbG8=\n'), 'application/yaml'],
    () => ['yaml:omap-metadata', yamlValid.replace(`metadata:\n  name: ${name}\n`, `metadata: !!omap [{name: ${name}}]\n`), 'application/yaml'],
    () => [`yaml:root-${random.pick(['sequence', 'number', 'string', 'bool'])}`, random.pick(['- a\n- b\n', '42\n', "'str'\n", 'true\n']), 'application/yaml'],
    () => ['yaml:nested-1000', `${'['.repeat(1000)}${']'.repeat(1000)}\n`, 'application/yaml'],
    () => ['yaml:block-nested-300', Array.from({ length: 300 }, (_, depth) => `${' '.repeat(depth)}k${depth}:`).join('\n') + ' 1\n', 'application/yaml'],
    () => ['yaml:duplicate-keys', `${yamlValid}spec:\n  user: other\n`, 'application/yaml'],
    () => ['binary:octet-stream', random.bytes(1 + random.int(2048)), 'application/octet-stream'],
    () => ['binary:protobuf', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), random.bytes(1 + random.int(512))]), 'application/vnd.kubernetes.protobuf'],
    () => ['binary:as-json', Buffer.concat([Buffer.from([0xff, 0xfe]), random.bytes(1 + random.int(512))]), 'application/json'],
    () => ['binary:as-yaml', Buffer.concat([Buffer.from([0x00, 0xff]), random.bytes(1 + random.int(512))]), 'application/yaml'],
    () => ['binary:cbor', random.bytes(1 + random.int(256)), 'application/cbor'],
  ];
  const [label, body, contentType] = random.pick(variants)();
  return [label, Buffer.isBuffer(body) ? body : Buffer.from(body), contentType];
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A valid body sent under a media type the write does not accept (415, or 400 when no type is given). */
function wrongContentType(random: SeededRandom): string | undefined {
  return random.pick([undefined, '', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/yaml', 'application/jsonx', 'json', 'application/*', '*/*', 'application/json-seq', 'image/png']);
}

/** A path that names nothing the server serves (random segments, unknown groups, versions, resources, subresources). */
function unservedPath(random: SeededRandom, keys: HostileKeys): [string, string] {
  const segment = (): string => `x${random.chars('abcdefghijklmnopqrstuvwxyz0123456789-._~', 1 + random.int(20))}`;
  const variants: Array<() => [string, string]> = [
    () => ['path:random-segments', `${BASE}/${Array.from({ length: 1 + random.int(6) }, segment).join('/')}`],
    () => ['path:random-under-apis', `${BASE}/apis/${segment()}/${segment()}`],
    () => ['path:random-under-api', `${BASE}/api/v1/${segment()}`],
    () => ['path:unknown-resource', `${BASE}/apis/${GROUP_VERSION}/${segment()}`],
    () => ['path:unknown-version', `${BASE}/apis/management.loft.sh/v2/ownedaccesskeys`],
    () => ['path:unknown-group', `${BASE}/apis/management.devsy.sh/v1/ownedaccesskeys`],
    () => ['path:core-secrets', `${BASE}/api/v1/namespaces/vcsync/secrets`],
    () => ['path:namespaced-keys', `${BASE}/apis/${GROUP_VERSION}/namespaces/default/ownedaccesskeys`],
    () => ['path:subresource-unknown', `${KEYS}/${keys.victim}/${random.pick(['exec', 'scale', 'proxy', 'log', 'status/extra', 'binding'])}`],
    () => ['path:dot-dot-out', `${KEYS}/${'../'.repeat(4 + random.int(4))}${segment()}`],
    () => ['path:dot-dot-leave-base', `${BASE}/../../${segment()}`],
    () => ['path:encoded-dot-dot', `${KEYS}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/${segment()}`],
    () => ['path:encoded-slash', `${KEYS}/a%2F${segment()}`],
    () => ['path:encoded-nul', `${KEYS}/a%00${segment()}`],
    () => ['path:bad-percent', `${KEYS}/${random.pick(['%ZZ', '%', '%C0%AF', '%E0%80', '%uFFFF', 'a%2'])}${segment()}`],
    () => ['path:bad-percent-group', `${BASE}/apis/${random.pick(['%ZZ', '%', '%C0%AF'])}/v1/ownedaccesskeys`],
    () => ['path:long-8k', `${KEYS}/${'a'.repeat(8000)}`],
    () => ['path:long-segments', `${BASE}/${Array(2000).fill('a').join('/')}`],
    () => ['path:outside-base', `/${random.pick(['api', 'apis', 'kubernetes', 'kubernetes/managementx', 'kubernetes/management.'])}/${segment()}`],
    () => ['path:double-slash', `${BASE}//apis//${segment()}`],
  ];
  return random.pick(variants)();
}

const ODD_METHODS = ['OPTIONS', 'TRACE', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'PURGE', 'SEARCH', 'REPORT', 'MKACTIVITY', 'CHECKOUT', 'MERGE', 'NOTIFY', 'SUBSCRIBE', 'UNSUBSCRIBE', 'LINK', 'UNLINK', 'BIND', 'REBIND', 'UNBIND', 'ACL', 'QUERY', 'SOURCE'];

/** Raw request bytes an HTTP client would not send: control characters, smuggling, broken framing. */
function rawRequest(random: SeededRandom, keys: HostileKeys): [string, Buffer] {
  const auth = random.next() < 0.5 ? `Authorization: Bearer ${keys.admin}\r\n` : '';
  const line = (method: string, target: string, headers = ''): string => `${method} ${target} HTTP/1.1\r\nHost: localhost\r\n${auth}${headers}Connection: close\r\n\r\n`;
  const variants: Array<() => [string, string | Buffer]> = [
    () => ['raw:nul-in-path', line('GET', `${KEYS}/a\u0000b`)],
    () => ['raw:control-in-path', line('GET', `${KEYS}/a${String.fromCharCode(1 + random.int(31))}b`)],
    () => ['raw:del-in-path', line('GET', `${KEYS}/a\u007fb`)],
    () => ['raw:space-in-path', line('GET', `${KEYS}/a b`)],
    () => ['raw:non-ascii-path', Buffer.concat([Buffer.from(`GET ${KEYS}/`), Buffer.from([0xc3, 0xbc, 0xff]), Buffer.from(` HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`)])],
    () => ['raw:lowercase-method', line('get', KEYS)],
    () => ['raw:unknown-method', line(random.pick(['FOO', 'BREW', 'DESTROY', 'G_ET']), KEYS)],
    () => ['raw:connect', line('CONNECT', 'localhost:443')],
    () => ['raw:absolute-uri', line('GET', `https://evil.invalid${KEYS}`)],
    () => ['raw:asterisk', line('OPTIONS', '*')],
    () => ['raw:http-0.9', `GET ${KEYS}\r\n\r\n`],
    () => ['raw:http-2.0-line', `GET ${KEYS} HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n`],
    () => ['raw:bad-version', `GET ${KEYS} HTTP/1.7\r\nHost: x\r\nConnection: close\r\n\r\n`],
    () => ['raw:nul-in-header', line('GET', KEYS, 'X-Junk: a\u0000b\r\n')],
    () => ['raw:non-ascii-auth', Buffer.concat([Buffer.from(`GET ${KEYS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer `), random.bytes(40).map((byte) => (byte === 13 || byte === 10 ? 65 : byte)), Buffer.from('\r\nConnection: close\r\n\r\n')])],
    () => ['raw:huge-auth-header', line('GET', KEYS, `Authorization: Bearer ${'A'.repeat(70_000)}\r\n`)],
    () => ['raw:long-path-100k', line('GET', `${KEYS}/${'a'.repeat(100_000)}`)],
    () => ['raw:many-headers', line('GET', KEYS, Array.from({ length: 3000 }, (_, index) => `X-H${index}: v\r\n`).join(''))],
    () => ['raw:bad-header-line', line('GET', KEYS, 'this is not a header\r\n')],
    () => ['raw:content-length-negative', line('POST', KEYS, 'Content-Type: application/json\r\nContent-Length: -1\r\n')],
    () => ['raw:content-length-junk', line('POST', KEYS, 'Content-Type: application/json\r\nContent-Length: abc\r\n')],
    () => ['raw:content-length-twice', line('POST', KEYS, 'Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n') + '{}'],
    () => ['raw:smuggling-cl-te', line('POST', KEYS, 'Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n'],
    () => ['raw:bad-chunked', line('POST', KEYS, 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n') + 'zz\r\n{}\r\n0\r\n\r\n'],
    () => ['raw:te-gzip', line('POST', KEYS, 'Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n') + '{}'],
    // Past the 3 MiB limit, sent whole whatever the answer: the 413 (401 without a key) must reach the client.
    () => {
      const size = 3 * 1024 * 1024 + 1 + random.int(4 * 1024 * 1024);
      return ['raw:huge-body', `${line('POST', KEYS, `Content-Type: application/json\r\nContent-Length: ${size}\r\n`)}${'x'.repeat(size)}`];
    },
    () => ['raw:garbage', Buffer.from(random.bytes(1 + random.int(200)).map((byte) => (byte === 10 ? 0 : byte)))],
  ];
  const [label, bytes] = random.pick(variants)();
  return [label, Buffer.isBuffer(bytes) ? Buffer.concat([bytes, Buffer.from('\r\n\r\n')]) : Buffer.from(bytes)];
}

const MiB = 1024 * 1024;

/**
 * A body past the limit that the client goes on sending after the answer, with or without a key,
 * to a route that reads bodies or to one answered from the head (401, 404, 405): fast, up to 128
 * MiB of a declared size up to 1 GiB, or a trickle that would outlast the server's patience.
 */
function streamedRequest(random: SeededRandom, keys: HostileKeys): HostileRequest {
  const [authLabel, authorization] = random.pick([
    ['admin', `Bearer ${keys.admin}`],
    ['none', undefined],
    ['unknown', `Bearer ${random.chars(KEY_CHARS, 43)}`],
  ] as Array<[string, string | undefined]>);
  const [method, path] = random.pick([
    ['POST', KEYS],
    ['PUT', `${KEYS}/${keys.victim}`],
    ['PATCH', `${KEYS}/${keys.victim}`],
    ['GET', KEYS],
    ['POST', `${BASE}/version`],
    ['POST', '/elsewhere'],
    ['PROPFIND', KEYS],
  ] as Array<[string, string]>);
  const headers: Record<string, string> = { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' };
  if (authorization !== undefined) headers['authorization'] = authorization;
  const trickle = random.next() < 0.15;
  const declaredBytes = trickle ? 8 * MiB : 8 * MiB + random.int(1016 * MiB);
  const stream: StreamedBody = trickle
    ? { declaredBytes, sendBytes: 5 * MiB, chunkBytes: 16 * 1024, paceMs: 50 }
    : { declaredBytes, sendBytes: Math.min(declaredBytes, 128 * MiB), chunkBytes: 64 * 1024, paceMs: 0 };
  // A GET with a key may be served (its body ignored); everything else is refused.
  const expect: Expectation = method === 'GET' && authLabel === 'admin' ? { kind: 'read' } : { kind: 'refused' };
  return { label: `stream:${trickle ? 'trickle' : 'fast'}:${authLabel}:${method}`, method, path, headers, stream, expect };
}

/** Query strings of writes that make an otherwise valid write invalid. */
function invalidWriteQuery(random: SeededRandom): [string, string] {
  return random.pick([
    ['dryRun-junk', 'dryRun=junk'],
    ['dryRun-All-and-junk', 'dryRun=All&dryRun=junk'],
    ['fieldValidation-junk', 'fieldValidation=maybe'],
    ['fieldManager-too-long', `fieldManager=${'m'.repeat(200)}`],
    ['fieldManager-control', 'fieldManager=a%01b'],
    ['unknown-field-strict', 'fieldValidation=Strict'],
  ] as Array<[string, string]>);
}

/** Accept headers a server cannot satisfy with JSON. */
const UNACCEPTABLE = ['application/xml', 'text/html', 'image/png', 'application/vnd.kubernetes.protobuf', 'application/json;as=Garbage;v=v1;g=meta.k8s.io', 'text/plain'];

/**
 * `count` hostile requests from `seed`, each classified by what the server must answer. About a
 * third carry failing credentials, the rest the admin's, a non-admin owner's or a scoped key with
 * bodies, paths, methods, headers and query strings that make the request invalid.
 */
export function hostileRequests(seed: number, count: number, keys: HostileKeys): HostileRequest[] {
  const random = new SeededRandom(seed);
  const requests: HostileRequest[] = [];
  for (let index = 0; index < count; index += 1) requests.push(oneRequest(random, keys, `h${seed.toString(36)}-${index}`));
  return requests;
}

function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

function oneRequest(random: SeededRandom, keys: HostileKeys, name: string): HostileRequest {
  const roll = random.int(100);
  const writeTarget = (): [string, string] =>
    random.pick([
      ['POST', KEYS],
      ['PUT', `${KEYS}/${keys.victim}`],
      ['PUT', `${KEYS}/${name}`],
      ['PATCH', `${KEYS}/${keys.victim}`],
      ['PUT', `${KEYS}/${keys.victim}/status`],
    ] as Array<[string, string]>);

  if (roll < 25) {
    // Valid requests (valid bodies) with credentials that authenticate nobody: 401, nothing written.
    const [variant, authorization] = failingAuthorization(random, keys);
    const headers: Record<string, string | string[]> = { accept: 'application/json' };
    if (authorization !== undefined) headers['authorization'] = authorization;
    const [method, path] = random.pick([
      ['POST', KEYS],
      ['PUT', `${KEYS}/${keys.victim}`],
      ['PATCH', `${KEYS}/${keys.victim}`],
      ['DELETE', `${KEYS}/${keys.victim}`],
      ['DELETE', KEYS],
      ['GET', KEYS],
      ['GET', `${BASE}/apis`],
      ['GET', `${BASE}/version`],
      ['GET', `${BASE}/openapi/v2`],
    ] as Array<[string, string]>);
    let body: Buffer | undefined;
    if (method === 'POST' || method === 'PUT') body = json(validKeyBody(method === 'POST' ? name : keys.victim, 'mallory'));
    if (method === 'PATCH') body = json({ spec: { disabled: true, groups: ['management:admins'] } });
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    return { label: `auth:${variant}:${method}`, method, path, headers, ...(body !== undefined ? { body } : {}), expect: { kind: 'refused', status: 401 } };
  }
  if (roll < 35) {
    // Valid bodies from authenticated callers who may not make the request: 403 or 404.
    const which = random.int(6);
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
    const disable = json({ spec: { disabled: true } });
    const variants: Array<[string, string, string, Record<string, string>, Buffer | undefined, number]> = [
      ['scoped:create', 'POST', KEYS, bearer(keys.scoped), json(validKeyBody(name, 'oscar')), 403],
      ['scoped:delete-own-collection', 'DELETE', KEYS, bearer(keys.scoped), undefined, 403],
      ['owner:create-for-other', 'POST', KEYS, bearer(keys.owner), json(validKeyBody(name, 'victor')), 403],
      ['owner:escalate-groups', 'POST', KEYS, bearer(keys.owner), json({ ...validKeyBody(name, 'mallory'), spec: { user: 'mallory', groups: ['management:admins'] } }), 403],
      ['owner:patch-victim', 'PATCH', `${KEYS}/${keys.victim}`, bearer(keys.owner), disable, 404],
      ['owner:delete-victim', 'DELETE', `${KEYS}/${keys.victim}`, bearer(keys.owner), undefined, 404],
    ];
    const [label, method, path, auth, body, status] = variants[which] as (typeof variants)[number];
    if (method === 'PATCH') headers['content-type'] = 'application/merge-patch+json';
    return { label, method, path, headers: { ...headers, ...auth }, ...(body !== undefined ? { body } : {}), expect: { kind: 'refused', status } };
  }
  const privileged = random.next() < 0.8 ? keys.admin : keys.owner;
  const headers: Record<string, string> = { accept: 'application/json', ...bearer(privileged) };
  if (roll < 55) {
    const [label, body, contentType] = malformedBody(random, name);
    const [method, path] = writeTarget();
    return { label: `body:${label}:${method}`, method, path, headers: { ...headers, 'content-type': contentType }, body, expect: { kind: 'refused' } };
  }
  if (roll < 70) {
    const [label, object, only] = invalidObject(random, name);
    const [method, path] = only === 'create-only' ? ['POST', KEYS] : writeTarget();
    const [query, contentType] = random.next() < 0.2 ? ['?fieldValidation=Strict', 'application/json'] : ['', 'application/json'];
    return { label: `object:${label}:${method}`, method, path: `${path}${query}`, headers: { ...headers, 'content-type': contentType }, body: json(object), expect: { kind: 'refused' } };
  }
  if (roll < 75) {
    const contentType = wrongContentType(random);
    const hdrs: Record<string, string> = { ...headers };
    if (contentType !== undefined) hdrs['content-type'] = contentType;
    // No Content-Type is JSON for a create or update, as on the real server; only a PATCH must name its type.
    const method = contentType === undefined ? 'PATCH' : random.pick(['POST', 'PUT', 'PATCH']);
    const path = method === 'POST' ? KEYS : `${KEYS}/${keys.victim}`;
    const body = method === 'PATCH' ? json({ spec: { disabled: true } }) : json(validKeyBody(method === 'POST' ? name : keys.victim));
    if (method === 'PATCH' && contentType === undefined && random.next() < 0.5) hdrs['content-type'] = random.pick(['application/json', 'application/yaml']);
    return { label: `content-type:${String(contentType)}:${method}`, method, path, headers: hdrs, body, expect: { kind: 'refused' } };
  }
  if (roll < 76) {
    // Over the 3 MiB limit: 413 whoever sends it.
    const padding = 'x'.repeat(3 * 1024 * 1024 + random.int(1024));
    const object = { ...validKeyBody(name), metadata: { name, annotations: { padding } } };
    const auth = random.next() < 0.5 ? headers : { accept: 'application/json' };
    return { label: 'body:huge', method: 'POST', path: KEYS, headers: { ...auth, 'content-type': random.pick(['application/json', 'application/yaml']) }, body: json(object), expect: { kind: 'refused', status: auth === headers ? 413 : 401 } };
  }
  if (roll < 85) {
    const [label, path] = unservedPath(random, keys);
    const method = random.pick(['GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
    const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : json(validKeyBody(name));
    const hdrs: Record<string, string> = { ...headers };
    if (body !== undefined) hdrs['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const read = (method === 'GET' || method === 'HEAD') && isServedReadPath(path, keys);
    return { label: `${label}:${method}`, method, path, headers: hdrs, ...(body !== undefined ? { body } : {}), expect: read ? { kind: 'read' } : { kind: 'refused' } };
  }
  if (roll < 89) {
    const method = random.pick(ODD_METHODS);
    const path = random.pick([KEYS, `${KEYS}/${keys.victim}`, `${BASE}/apis`, `${BASE}/version`]);
    const body = random.next() < 0.5 ? json(validKeyBody(name)) : undefined;
    return { label: `method:${method}`, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body } : {}), expect: { kind: 'refused' } };
  }
  if (roll < 93) {
    if (random.next() < 0.25) return streamedRequest(random, keys);
    const [label, raw] = rawRequest(random, keys);
    return { label, method: 'RAW', path: KEYS, headers: {}, raw, expect: { kind: 'refused' } };
  }
  if (roll < 97) {
    // Invalid query options: on writes of valid bodies they must refuse the write; on reads a server may accept some (limit=-1).
    if (random.next() < 0.5) {
      const [label, query] = invalidWriteQuery(random);
      const object = label === 'unknown-field-strict' ? { ...validKeyBody(name), spec: { user: 'victor', unknownField: 1 } } : validKeyBody(name);
      const deletion = random.next() < 0.25;
      if (deletion) {
        const junk = random.pick(['propagationPolicy=Sideways', 'gracePeriodSeconds=soon', 'dryRun=junk', 'orphanDependents=maybe&propagationPolicy=Foreground']);
        return { label: `query:delete:${junk}`, method: 'DELETE', path: `${KEYS}/${keys.victim}?${junk}`, headers, expect: { kind: 'refused' } };
      }
      return { label: `query:${label}`, method: 'POST', path: `${KEYS}?${query}`, headers: { ...headers, 'content-type': 'application/json' }, body: json(object), expect: { kind: 'refused' } };
    }
    const query = random.pick(['limit=-1', 'limit=abc', 'watch=maybe', 'fieldSelector=metadata.name%3D%3D', 'fieldSelector=(((', 'fieldSelector=spec.user%3Dx', 'labelSelector=!!!', 'labelSelector=a%20in%20(', 'resourceVersion=junk', 'resourceVersion=-5&resourceVersionMatch=Exact', 'resourceVersionMatch=Sideways&resourceVersion=1', 'continue=garbage', 'watch=true&resourceVersion=junk', 'sendInitialEvents=maybe']);
    // A read stores nothing whatever it answers. The real server answers some of these 200
    // (limit=-1; watch=maybe is a watch there); a watch from a junk resourceVersion may answer 200
    // and end with an in-stream 410 on the host-Secret store, whose versions are the host's and
    // opaque, so junk cannot be told from a version too old.
    return { label: `query:read:${query}`, method: 'GET', path: `${KEYS}?${query}`, headers, expect: { kind: 'read' } };
  }
  const accept = random.pick(UNACCEPTABLE);
  const path = random.pick([KEYS, `${KEYS}/${keys.victim}`]);
  return { label: `accept:${accept}`, method: 'GET', path, headers: { ...headers, accept }, expect: { kind: 'refused', status: 406 } };
}

/** How a {@link WideningWrite} is sent: a patch of one type, a PUT of the key read back with the changes, or a status patch. */
export type WideningWriteForm = 'merge' | 'strategic' | 'json' | 'apply' | 'put' | 'status';

/**
 * One random write by a narrow key to a key it owns: `changes` to the spec (null
 * removes a field), sent as `form`; `chosenKey` when it writes a key value (unique per write).
 */
export interface WideningWrite {
  label: string;
  target: string;
  form: WideningWriteForm;
  changes: Record<string, unknown>;
  chosenKey?: string;
  /** For `status`: the lastActivity written. */
  lastActivity?: string;
}

/** The management group's key resources, the scope entries the writes try. */
const KEY_RESOURCES = { group: 'management.loft.sh', resources: ['ownedaccesskeys'] };
const SCOPE_CHOICES: readonly unknown[] = [
  null,
  {},
  { rules: [{ verbs: ['*'], resources: [KEY_RESOURCES] }] },
  { rules: [{ verbs: ['get', 'list'], resources: [KEY_RESOURCES] }] },
  { rules: [{ verbs: ['get'], nonResourceURLs: ['/version'], resources: [KEY_RESOURCES] }] },
  { roles: [{ role: 'platformCLI' }] },
];

/** One spec change a write may make, as [field, value]; null removes the field. */
function specChange(random: SeededRandom, chosenKey: string): [string, unknown] {
  const field = random.pick(['key', 'disabled', 'ttl', 'ttlAfterLastActivity', 'groups', 'scope', 'user', 'team', 'displayName']);
  switch (field) {
    case 'key':
      return ['key', chosenKey];
    case 'disabled':
      return ['disabled', random.pick([false, true, null])];
    case 'ttl':
      return ['ttl', random.pick([0, 30, 60, 86_400, null])];
    case 'ttlAfterLastActivity':
      return ['ttlAfterLastActivity', random.pick([true, false, null])];
    case 'groups':
      return ['groups', random.pick([[], ['dev'], ['ops'], ['dev', 'management:admins'], null])];
    case 'scope':
      return ['scope', random.pick(SCOPE_CHOICES)];
    case 'user':
      return ['user', random.pick(['alice', 'bob'])];
    case 'team':
      return ['team', random.pick(['ops', null])];
    default:
      return ['displayName', `renamed-${random.chars(KEY_CHARS, 6)}`];
  }
}

/**
 * `count` random writes to the keys `targets` (deterministic for `seed`): one to three spec
 * changes each, by every write path, or a status write of lastActivity around `nowMs`. Whether
 * one must be refused is not decided here: the test uses the resulting key to see what it reaches.
 */
export function wideningWrites(seed: number, count: number, targets: readonly string[], nowMs: number): WideningWrite[] {
  const random = new SeededRandom(seed);
  const forms: readonly WideningWriteForm[] = ['merge', 'strategic', 'json', 'apply', 'put', 'status'];
  return Array.from({ length: count }, (_, index): WideningWrite => {
    const target = random.pick(targets);
    const form = random.pick(forms);
    if (form === 'status') {
      const lastActivity = new Date(nowMs + random.pick([-3_600_000, 0, 3_600_000])).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return { label: `status:${target}`, target, form, changes: {}, lastActivity };
    }
    const chosen = `Chosen-${seed}-${index}-${random.chars(KEY_CHARS, 32)}`;
    const changes: Record<string, unknown> = {};
    for (let change = 0; change <= random.int(3); change += 1) {
      const [field, value] = specChange(random, chosen);
      changes[field] = value;
    }
    return { label: `${form}:${target}:${Object.keys(changes).join(',')}`, target, form, changes, ...('key' in changes ? { chosenKey: chosen } : {}) };
  });
}
