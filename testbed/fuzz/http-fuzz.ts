import { Agent } from 'node:http';
import { gzipSync } from 'node:zlib';
import { certificateRequestParts, MalformedDerError, pemBlock } from '#vcsync/apiserver/index.js';
import { createCertificateRequest } from '#vcsync/apiserver/security/certificate-request-builder.js';
import { pemOf } from '#vcsync/apiserver/security/der-writer.js';
import { startDevCluster } from '#vcsync/devcluster/index.js';
import { SeededRandom } from '../seeded-random.js';
import { fuzzAttribute, requestWithAttributes } from './hand-written-requests.js';
import { copyDoublingPatch, hugeMergePatch, manyOperationsPatch, stringDoublingPatch } from './growing-patches.js';
import { keptConnectionProblem, replyProblem, sendFuzzRequest, type FuzzReply, type FuzzRequest } from './fuzz-request.js';
import { runPressureFuzz, type PressureReport } from './pressure-fuzz.js';

/**
 * HTTP fuzzing of devcluster: seeded random requests (paths, methods, headers,
 * bodies in JSON, YAML with alias bombs, protobuf garbage, binary, huge and deeply nested; patches
 * that grow an object by copying it into itself or whose result is too large to store, sent to an
 * object that exists: {@link GROWTH_TARGET}; certificate requests cut, flipped or written by hand),
 * with and without credentials. Every answer must be a 2xx or a 4xx Kubernetes Status, never a 5xx, a
 * dropped connection or a hang; requests without credentials change nothing stored; every
 * certificate request stored is one its signer can read; the server still answers a known-good
 * request at the end. Shared by test/integration/devcluster/
 * devcluster-fuzz.test.ts and benchmarks/fuzz.mjs; the same seed yields the same requests.
 */

/** Counts and problems of an HTTP fuzz run. */
export interface HttpFuzzReport {
  readonly seed: number;
  readonly tried: number;
  /** Answers by status code. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Answers by status code to the requests of the growth class (labels with `:growth:`), sent to the growth target. */
  readonly growthStatuses: Readonly<Record<string, number>>;
  /** The exhaustion classes: watches streamed and refused in the flood, stalled heads closed. */
  readonly pressure?: Omit<PressureReport, 'problems'>;
  readonly problems: readonly string[];
}

/** The ConfigMap (in `default`) that patches of the growth class are sent to: created before the run. */
export const GROWTH_TARGET = 'growth-target';
const GROWTH_PATH = `/api/v1/namespaces/default/configmaps/${GROWTH_TARGET}`;
const MiB = 1024 * 1024;

/** The devcluster's limits during the fuzz: small, so that the pressure classes reach them. */
const FUZZ_LIMITS = { maxWatchesPerUser: 8, headersTimeoutMs: 1000 } as const;

const NAMESPACED = ['configmaps', 'secrets', 'services', 'endpoints', 'pods', 'serviceaccounts', 'events'];
const CSRS = 'certificatesigningrequests';
const CSRS_PATH = `/apis/certificates.k8s.io/v1/${CSRS}`;
const KINDS: Record<string, string> = { [CSRS]: 'CertificateSigningRequest', configmaps: 'ConfigMap', secrets: 'Secret', services: 'Service', endpoints: 'Endpoints', pods: 'Pod', serviceaccounts: 'ServiceAccount', events: 'Event', namespaces: 'Namespace' };
// CONNECT is left out: node's HTTP client waits for a tunnel (the raw-request management fuzzer sends it).
const METHODS = ['GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL'];
const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'application/cbor',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json;;;=',
  '',
];
const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=Garbage;v=v9;g=x',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'text/html',
  'image/png',
  '*/*',
  'application/*;q=0.1, text/*;q=0.9',
  ';;;',
];

function name(random: SeededRandom): string {
  return random.pick(['fuzz', 'a', 'default', 'kube-root-ca.crt', 'x'.repeat(253), 'UPPER', 'a_b', '-lead', 'dot.ted', '..', '%2e%2e', 'a%2Fb', 'a%00b', '%ZZ', `f${random.int(1000)}`, '%F0%9F%92%A5', 'a%20b', '%C0%AF']);
}

function fuzzPath(random: SeededRandom): string {
  const ns = random.pick(['default', 'kube-system', 'fuzz', 'missing', 'UPPER', '..', 'a%2Fb']);
  const resource = random.pick(NAMESPACED);
  const variants: Array<() => string> = [
    () => `/api/v1/namespaces/${ns}/${resource}`,
    () => `/api/v1/namespaces/${ns}/${resource}/${name(random)}`,
    () => `/api/v1/namespaces/${ns}/${resource}/${name(random)}/${random.pick(['status', 'exec', 'log', 'scale', 'proxy', 'binding', 'x/y'])}`,
    () => `/api/v1/${resource}`,
    () => `/api/v1/namespaces${random.chance(0.5) ? `/${ns}` : ''}`,
    () => `/api/v1/namespaces/${ns}/${random.pick(['status', 'finalize'])}`,
    () => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases${random.chance(0.5) ? `/${name(random)}` : ''}`,
    () => `/apis/certificates.k8s.io/v1/certificatesigningrequests${random.chance(0.5) ? `/${name(random)}/${random.pick(['approval', 'status', ''])}` : ''}`,
    () => `/apis/authentication.k8s.io/v1/${random.pick(['tokenreviews', 'selfsubjectreviews'])}`,
    () => `/apis/authorization.k8s.io/v1/${random.pick(['selfsubjectaccessreviews', 'subjectaccessreviews'])}`,
    () => random.pick(['/api', '/apis', '/version', '/healthz', '/readyz', '/livez', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/apis/apps/v1', '/metrics']),
    () => `/${Array.from({ length: 1 + random.int(6) }, () => random.chars('abcdefghijklmnopqrstuvwxyz0123456789-._~%', 1 + random.int(12))).join('/')}`,
    () => `/api/v1/namespaces/${ns}/${resource}/${'../'.repeat(1 + random.int(6))}${resource}`,
    () => `/api/v1/namespaces/${ns}/${resource}/${'a'.repeat(random.chance(0.5) ? 8000 : 60_000)}`,
    () => `//api//v1//namespaces//${ns}//${resource}`,
    () => `/apis/${random.pick(['x.example.com', 'apps', '', '%ZZ'])}/${random.pick(['v1', 'v2beta1', ''])}/${resource}`,
  ];
  const path = random.pick(variants)();
  return random.chance(0.35) ? `${path}?${query(random)}` : path;
}

function query(random: SeededRandom): string {
  return Array.from({ length: 1 + random.int(3) }, () =>
    random.pick([
      'limit=-1',
      'limit=abc',
      'limit=2',
      'continue=garbage',
      'labelSelector=!!!',
      'labelSelector=a%20in%20(',
      'labelSelector=app%3Dweb',
      'fieldSelector=metadata.name%3D%3D',
      'fieldSelector=spec.nodeName%3Dx',
      'fieldSelector=(((',
      'resourceVersion=junk',
      'resourceVersion=1&resourceVersionMatch=Exact',
      'resourceVersionMatch=Sideways',
      'dryRun=All',
      'dryRun=junk',
      'fieldValidation=Strict',
      'fieldValidation=maybe',
      'fieldManager=' + 'm'.repeat(200),
      'force=maybe',
      'propagationPolicy=Sideways',
      'gracePeriodSeconds=soon',
      'timeoutSeconds=-5',
      'pretty=1',
      'sendInitialEvents=maybe',
      '%ZZ=%ZZ',
      'a=' + 'b'.repeat(5000),
    ]),
  ).join('&');
}

/** A valid request, made once: the fuzz cuts and flips its bytes. */
let validRequestDer: Buffer | undefined;

/**
 * A PEM certificate request for a CertificateSigningRequest's spec.request: a valid one; one cut
 * short or with bytes flipped; or one written by hand, validly self-signed, with attributes and
 * requested extensions of every shape (hand-written-requests.ts).
 */
function certificateRequest(random: SeededRandom): string {
  validRequestDer ??= pemBlock(createCertificateRequest({ commonName: 'fuzz' }).requestPem, 'CERTIFICATE REQUEST') as Buffer;
  const der = validRequestDer;
  const variants: Array<() => string> = [
    () => pemOf('CERTIFICATE REQUEST', der),
    () => pemOf('CERTIFICATE REQUEST', der.subarray(0, random.int(der.length))),
    () => {
      const mutant = Buffer.from(der);
      for (let flips = 1 + random.int(3); flips > 0; flips -= 1) mutant[random.int(mutant.length)] = random.int(256);
      return pemOf('CERTIFICATE REQUEST', mutant);
    },
    () => pemOf('CERTIFICATE REQUEST', Buffer.concat([Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), random.bytes(random.int(64))])),
    () => requestWithAttributes(Array.from({ length: 1 + random.int(3) }, () => fuzzAttribute(random)), `fuzz-${random.int(100)}`),
    () => requestWithAttributes([fuzzAttribute(random)], `fuzz-${random.int(100)}`),
  ];
  return random.pick(variants)();
}

/** A CertificateSigningRequest whose request comes from {@link certificateRequest}. */
function certificateSigningRequest(random: SeededRandom): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: `fuzz-${random.int(1000)}` },
    spec: {
      request: Buffer.from(certificateRequest(random)).toString('base64'),
      signerName: random.pick(['kubernetes.io/kube-apiserver-client', 'example.com/fuzz']),
      usages: random.pick([['client auth'], ['client auth', 'digital signature'], ['server auth']]),
    },
  };
}

/** The create of a CertificateSigningRequest, as a body of {@link body}'s shape. */
function certificateSigningRequestCreate(random: SeededRandom): [string, Buffer, string] {
  return ['csr:create', Buffer.from(JSON.stringify(certificateSigningRequest(random))), 'application/json'];
}

/** A plausible object for `resource`, often broken on purpose. */
function objectBody(random: SeededRandom, resource: string): Record<string, unknown> {
  const kind = KINDS[resource] ?? 'ConfigMap';
  const object: Record<string, unknown> = { apiVersion: 'v1', kind, metadata: { name: `fuzz-${random.int(1000)}`, namespace: 'default', labels: { app: 'fuzz' } } };
  if (kind === 'CertificateSigningRequest') Object.assign(object, certificateSigningRequest(random));
  if (kind === 'ConfigMap') object['data'] = { a: 'b' };
  if (kind === 'Secret') object['stringData'] = { a: 'b' };
  if (kind === 'Service') object['spec'] = { ports: [{ port: 80 }] };
  if (kind === 'Pod') object['spec'] = { containers: [{ name: 'c', image: 'x' }] };
  const breakages: Array<() => void> = [
    () => undefined,
    () => (object['apiVersion'] = random.pick(['v2', 42, '', 'apps/v1', null])),
    () => (object['kind'] = random.pick(['Secret', 'List', 42, '', null])),
    () => (object['metadata'] = random.pick(['x', [], null, { name: 'UP_per' }, { generateName: '' }, { name: 'a', resourceVersion: 'junk' }, { name: 'a', uid: 7 }, { name: 'a', finalizers: ['bad finalizer!'] }, { name: 'a', ownerReferences: [{}] }, { name: 'a', labels: { 'bad key!': 'v' } }, { name: 'a', managedFields: 'x' }])),
    () => (object['spec'] = random.pick(['x', [], { ports: 'x' }, { ports: [{ port: 'eighty' }] }, { containers: [{}] }, { clusterIP: 'not-an-ip' }, { selector: { 'bad key!': 'x' } }])),
    () => (object['data'] = random.pick([{ a: 5 }, 'x', { '': 'v' }, { 'bad/key': 'v' }])),
    () => (object['status'] = { phase: 'Hacked', conditions: 'x' }),
    () => (object[random.chars('abcdefghijklmnop', 8)] = { unknown: true }),
  ];
  random.pick(breakages)();
  return object;
}

function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const LAUGHS = (() => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < 9; level += 1) {
    const anchor = String.fromCharCode(97 + level);
    lines.push(`${anchor}: &${anchor} [${Array(9).fill(`*${String.fromCharCode(96 + level)}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
})();

/** A body and the content type it is sent with (often not the one it is in). */
function body(random: SeededRandom, resource: string): [string, Buffer, string] {
  const object = objectBody(random, resource);
  const json = JSON.stringify(object);
  const variants: Array<() => [string, string | Buffer, string]> = [
    () => ['json', json, 'application/json'],
    () => ['json:truncated', json.slice(0, random.int(json.length)), 'application/json'],
    () => ['json:nested-100k', nestedJson(100_000), 'application/json'],
    () => ['json:nested-object-5k', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, random.pick(['application/json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'])],
    () => ['json:huge-4mb', JSON.stringify({ ...object, data: { big: 'x'.repeat(4 * 1024 * 1024) } }), 'application/json'],
    () => ['json:many-keys', JSON.stringify({ ...object, data: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 'v'])) }), 'application/json'],
    () => ['json:proto-keys', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"proto","__proto__":{"x":1}}}', 'application/json'],
    () => ['json:duplicate-keys', '{"apiVersion":"v1","kind":"ConfigMap","kind":"Secret","metadata":{"name":"dup"},"metadata":{"name":"dup2"}}', 'application/json'],
    () => ['json:bom', `\ufeff${json}`, 'application/json'],
    () => ['json:root-scalar', random.pick(['null', '42', '"s"', '[]', 'true']), random.pick(['application/json', 'application/merge-patch+json'])],
    () => ['json-patch', JSON.stringify(random.pick([[{ op: 'replace', path: '/metadata/name', value: 'x' }], [{ op: 'move', from: '/a', path: '/a/b' }], [{ op: 'add', path: '/data/' + 'x'.repeat(100), value: 1 }], [{ op: 'test', path: '/nope', value: 1 }], [{ op: 'copy', from: '/metadata', path: '/metadata/labels/x' }], { op: 'add' }, [{}]])), 'application/json-patch+json'],
    () => ['yaml', `apiVersion: v1\nkind: ${KINDS[resource] ?? 'ConfigMap'}\nmetadata:\n  name: yaml-${random.int(100)}\n`, random.pick(['application/yaml', 'application/apply-patch+yaml'])],
    () => ['yaml:alias-bomb', LAUGHS, random.pick(['application/yaml', 'application/apply-patch+yaml'])],
    () => ['yaml:alias-in-object', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels: &l {a: b}\ndata: &d\n  x: &x [${Array(50).fill('"y"').join(',')}]\nx1: &x1 [${Array(60).fill('*x').join(',')}]\nx2: [${Array(60).fill('*x1').join(',')}]\n`, 'application/yaml'],
    () => ['yaml:tags', random.pick(['!!js/function "function () { process.exit(1) }"\n', '--- !!binary aGVsbG8=\n', 'a: !!set {x, y}\n', '!<tag:yaml.org,2002:js/undefined> ~\n', 'metadata: !!omap [{name: x}]\n']), 'application/yaml'],
    () => ['yaml:nested', `${'['.repeat(2000)}${']'.repeat(2000)}\n`, 'application/yaml'],
    () => ['yaml:multi-document', `${json}\n---\n${json}\n`, 'application/yaml'],
    () => ['yaml:unknown-alias', 'apiVersion: v1\nkind: ConfigMap\nmetadata: *nope\n', 'application/yaml'],
    () => ['protobuf:garbage', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), random.bytes(1 + random.int(512))]), 'application/vnd.kubernetes.protobuf'],
    () => ['protobuf:no-magic', random.bytes(1 + random.int(256)), 'application/vnd.kubernetes.protobuf'],
    () => ['protobuf:huge-length', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), random.bytes(16)]), 'application/vnd.kubernetes.protobuf'],
    () => ['protobuf:deep-nesting', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(Array.from({ length: 4000 }, () => [0x12, 0x7f]).flat())]), 'application/vnd.kubernetes.protobuf'],
    () => ['binary', random.bytes(1 + random.int(4096)), random.pick(CONTENT_TYPES)],
    () => ['binary:json-type', Buffer.concat([Buffer.from([0xff, 0xfe]), random.bytes(64)]), 'application/json'],
    () => ['cbor', random.bytes(1 + random.int(64)), random.pick(['application/cbor', 'application/apply-patch+cbor'])],
    // The growth class: small patches that copy a value into itself, and results past the object limit.
    () => ['growth:copy-doubling', JSON.stringify(copyDoublingPatch(random.pick(['/metadata/annotations', '/data', '/metadata']))), 'application/json-patch+json'],
    () => ['growth:string-doubling', JSON.stringify(stringDoublingPatch(random.pick(['/metadata/annotations', '/data']))), 'application/json-patch+json'],
    () => ['growth:many-operations', JSON.stringify(manyOperationsPatch(10_000 + random.int(3))), 'application/json-patch+json'],
    () => ['growth:huge-result', JSON.stringify(hugeMergePatch(2 * MiB + random.int(MiB / 2))), random.pick(['application/merge-patch+json', 'application/strategic-merge-patch+json'])],
    () => ['growth:huge-annotations', JSON.stringify({ metadata: { annotations: { big: 'x'.repeat(256 * 1024 + random.int(1024)) } } }), 'application/merge-patch+json'],
  ];
  const [label, bytes, contentType] = random.pick(variants)();
  return [label, Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), contentType];
}

/** Extra headers: encodings, huge values, odd accept and content-length games the HTTP client still sends. */
function extraHeaders(random: SeededRandom, headers: Record<string, string>): string {
  const variants: Array<[string, () => void]> = [
    ['none', () => undefined],
    ['accept', () => (headers['accept'] = random.pick(ACCEPTS))],
    ['content-encoding', () => (headers['content-encoding'] = random.pick(['gzip', 'br', 'deflate', 'identity', 'x-unknown', 'gzip, gzip']))],
    ['huge-header', () => (headers['x-fuzz'] = 'h'.repeat(random.chance(0.5) ? 8000 : 15_000))],
    ['many-headers', () => { for (let i = 0; i < 200; i += 1) headers[`x-h${i}`] = String(i); }],
    ['impersonate', () => Object.assign(headers, { 'impersonate-user': 'system:admin', 'impersonate-group': 'system:masters' })],
    ['user-agent', () => (headers['user-agent'] = '\u00ff'.repeat(100))],
    ['accept-encoding', () => (headers['accept-encoding'] = random.pick(['gzip', 'br;q=1, *;q=0', 'identity;q=0', 'x']))],
  ];
  const [label, apply] = random.pick(variants);
  apply();
  return label;
}

/** `count` requests from `seed`; each carries `authorization` when given and a coin says so (`authorized` then is always true). */
export function devclusterRequests(seed: number, count: number, authorization: string | undefined): FuzzRequest[] {
  const random = new SeededRandom(seed);
  const requests: FuzzRequest[] = [];
  for (let index = 0; index < count; index += 1) {
    const method = random.pick(METHODS);
    const path = fuzzPath(random);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization !== undefined) headers['authorization'] = authorization;
    else if (random.chance(0.3)) headers['authorization'] = random.pick(['Bearer wrong', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', `Bearer ${'A'.repeat(10_000)}`, 'Bearer fuzz-admin-tokenx']);
    const extra = extraHeaders(random, headers);
    let label = `${method}:${extra}`;
    let payload: Buffer | undefined;
    let sent = { method, path };
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) && random.chance(0.9)) {
      const resource = [CSRS, ...NAMESPACED].find((r) => path.includes(`/${r}`)) ?? 'configmaps';
      // One body in ten is a certificate request's create, whatever the path: the signer's input class.
      const [bodyLabel, bytes, contentType] = random.chance(0.1) ? certificateSigningRequestCreate(random) : body(random, resource);
      payload = headers['content-encoding'] === 'gzip' && random.chance(0.5) ? gzipSync(bytes) : bytes;
      if (contentType !== '') headers['content-type'] = method === 'PATCH' && random.chance(0.3) ? random.pick(CONTENT_TYPES) : contentType;
      label += `:${bodyLabel}`;
      // A growing patch only grows an object that exists: most go to the target, half of them as a dry run.
      if (bodyLabel.startsWith('growth:') && random.chance(0.8)) sent = { method: 'PATCH', path: random.chance(0.5) ? `${GROWTH_PATH}?dryRun=All` : GROWTH_PATH };
      if (bodyLabel === 'csr:create') sent = { method: 'POST', path: CSRS_PATH };
    }
    requests.push({ index, label, method: sent.method, path: sent.path, headers, ...(payload !== undefined ? { body: payload } : {}) });
  }
  return requests;
}

/** Sends every request, `concurrency` at a time; counts statuses and collects problems (prefixed with `where`). */
export async function sendAllFuzz(
  baseUrl: string,
  requests: readonly FuzzRequest[],
  options: { concurrency: number; deadlineMs: number; where: string },
): Promise<{ statuses: Record<string, number>; growthStatuses: Record<string, number>; problems: string[] }> {
  const statuses: Record<string, number> = {};
  const growthStatuses: Record<string, number> = {};
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const request = requests[next] as FuzzRequest;
      next += 1;
      const where = `${options.where} #${request.index} [${request.label}] ${request.method} ${request.path.slice(0, 160)}`;
      // Its own connection, which the answer may offer for a next request: then it must answer one.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const reply = await sendFuzzRequest(baseUrl, request, options.deadlineMs, agent);
        statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
        if (request.label.includes(':growth:') && request.path.startsWith(GROWTH_PATH)) growthStatuses[reply.status] = (growthStatuses[reply.status] ?? 0) + 1;
        const problem = replyProblem(request, reply) ?? (await keptConnectionProblem(baseUrl, reply, agent, options.deadlineMs));
        if (problem !== undefined) problems.push(`${where}: ${problem}`);
      } catch (error: unknown) {
        statuses['none'] = (statuses['none'] ?? 0) + 1;
        problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        agent.destroy();
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { statuses, growthStatuses, problems };
}

/**
 * The stored CertificateSigningRequests whose request the signer could not read: a request the
 * server accepts must be one it can sign (it is refused at create otherwise).
 */
async function unsignableRequests(get: (path: string) => Promise<FuzzReply>): Promise<string[]> {
  const reply = await get(CSRS_PATH);
  const list = JSON.parse(reply.body.toString('utf8')) as { items?: Array<{ metadata?: { name?: string }; spec?: { request?: string } }> };
  const problems: string[] = [];
  for (const item of list.items ?? []) {
    const der = pemBlock(Buffer.from(item.spec?.request ?? '', 'base64').toString('latin1'), 'CERTIFICATE REQUEST');
    try {
      if (der === undefined) throw new MalformedDerError('no CERTIFICATE REQUEST block');
      certificateRequestParts(der);
    } catch (error: unknown) {
      problems.push(`stored CertificateSigningRequest ${item.metadata?.name ?? '?'} has a request its signer cannot read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

const TOKEN = 'fuzz-admin-token';
const SNAPSHOT_PATHS = ['/api/v1/namespaces', ...NAMESPACED.map((resource) => `/api/v1/${resource}`), '/apis/coordination.k8s.io/v1/leases', '/apis/certificates.k8s.io/v1/certificatesigningrequests'];

/**
 * Starts a devcluster that requires a token, sends `count` requests without valid credentials
 * (nothing stored may change) and `count` with the admin token, checks every answer, then that a
 * ConfigMap can still be created and read; then, as the admin, the exhaustion classes of
 * pressure-fuzz.ts (a watch flood past the watch cap, stalled request heads). Returns the counts
 * and every problem found.
 */
export async function runDevclusterFuzz(options: { seed: number; count: number; concurrency?: number; deadlineMs?: number }): Promise<HttpFuzzReport> {
  const cluster = await startDevCluster({
    port: 0,
    tokens: [TOKEN],
    watchLimits: { maxWatchesPerUser: FUZZ_LIMITS.maxWatchesPerUser, maxWatches: 4 * FUZZ_LIMITS.maxWatchesPerUser },
    connectionLimits: { headersTimeoutMs: FUZZ_LIMITS.headersTimeoutMs },
  });
  const concurrency = options.concurrency ?? 4;
  const deadlineMs = options.deadlineMs ?? 20_000;
  const admin = { authorization: `Bearer ${TOKEN}`, accept: 'application/json' };
  const get = async (path: string): Promise<FuzzReply> => sendFuzzRequest(cluster.url, { index: -1, label: 'check', method: 'GET', path, headers: admin }, deadlineMs);
  const snapshot = async (): Promise<string> => {
    const lists = await Promise.all(SNAPSHOT_PATHS.map(async (path) => {
      const reply = await get(path);
      const list = JSON.parse(reply.body.toString('utf8')) as { items?: unknown[] };
      return [path, reply.status, list.items ?? []];
    }));
    return JSON.stringify(lists);
  };
  const problems: string[] = [];
  const statuses: Record<string, number> = {};
  const growthStatuses: Record<string, number> = {};
  let pressure: Omit<PressureReport, 'problems'> | undefined;
  const add = (counts: Record<string, number>, into = statuses): void => {
    for (const [status, n] of Object.entries(counts)) into[status] = (into[status] ?? 0) + n;
  };
  try {
    const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: GROWTH_TARGET, namespace: 'default', annotations: { a: 'b' } }, data: { a: 'b' } };
    const prepared = await sendFuzzRequest(cluster.url, { index: -1, label: 'growth-target', method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { ...admin, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(target)) }, deadlineMs);
    if (prepared.status !== 201) problems.push(`creating the growth target answered ${prepared.status}: ${prepared.body.toString('utf8').slice(0, 300)}`);
    const before = await snapshot();
    const anonymous = await sendAllFuzz(cluster.url, devclusterRequests(options.seed, options.count, undefined), { concurrency, deadlineMs, where: `without credentials (seed ${options.seed})` });
    add(anonymous.statuses);
    problems.push(...anonymous.problems);
    await cluster.settled();
    if ((await snapshot()) !== before) problems.push(`requests without credentials (seed ${options.seed}) changed what is stored`);
    const authorized = await sendAllFuzz(cluster.url, devclusterRequests(options.seed + 1, options.count, `Bearer ${TOKEN}`), { concurrency, deadlineMs, where: `as the admin (seed ${options.seed + 1})` });
    add(authorized.statuses);
    add(authorized.growthStatuses, growthStatuses);
    problems.push(...authorized.problems);
    problems.push(...(await unsignableRequests(get)));
    const good = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-fuzz-${options.seed}`, namespace: 'default' }, data: { a: 'b' } };
    const created = await sendFuzzRequest(cluster.url, { index: -1, label: 'after', method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { ...admin, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(good)) }, deadlineMs);
    const read = await get(`/api/v1/namespaces/default/configmaps/${good.metadata.name}`);
    if (created.status !== 201 || read.status !== 200) problems.push(`after the fuzzing a ConfigMap create answered ${created.status} and its read ${read.status}: ${created.body.toString('utf8').slice(0, 300)}`);
    const { problems: pressureProblems, ...counts } = await runPressureFuzz({ baseUrl: cluster.url, headers: admin, limits: FUZZ_LIMITS, random: new SeededRandom(options.seed + 2) });
    pressure = counts;
    problems.push(...pressureProblems.map((problem) => `pressure (seed ${options.seed + 2}): ${problem}`));
  } finally {
    await cluster.close();
  }
  return { seed: options.seed, tried: 2 * options.count, statuses, growthStatuses, ...(pressure !== undefined ? { pressure } : {}), problems };
}
