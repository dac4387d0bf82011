/**
 * The EndpointSlices syncer as a state table, as vcluster's SyncTest: the virtual slice and
 * Services, the host slices before → the reconcile's outcome and the host slices after. The host
 * is a small in-memory API with a real server's rules for what matters here (AlreadyExists,
 * NotFound, a uid precondition on delete, a refused addressType change); the host cache holds
 * what the informer would: the slices labelled as this vcluster's, as the cache transform keeps them.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../../../src/config/index.js';
import { ApiError } from '../../../src/apimachinery/index.js';
import type { Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import { cachedHostSlice } from '../../../src/syncer/endpointslices/cached-host-slice.js';
import type { EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';
import { endpointSlicesResource } from '../../../src/syncer/endpointslices/endpointslices-resource.js';
import { TerminalError, type ReconcileOutcome } from '../../../src/syncer/reconcile-outcome.js';
import { ToHostReconciler, type ClusterWriter } from '../../../src/syncer/to-host-reconciler.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { cacheOf, passThrough } from '../../support/hand-filled-cache.js';

const HOST_NS = 'host-ns';
const translator = createTranslator({ vclusterName: 'vc', hostNamespace: HOST_NS, config: defaultConfig() });

function apiError(code: number, reason: string, message: string): ApiError {
  return new ApiError({ httpStatus: code, status: { kind: 'Status', code, reason, message }, verb: 'X', path: '/x' });
}

/** The host's slices in one namespace, with the server rules the syncer meets. */
class FakeHost implements ClusterWriter {
  readonly objects = new Map<string, EndpointSlice>();
  #next = 1;

  constructor(initial: readonly EndpointSlice[]) {
    for (const slice of initial) this.#store(structuredClone(slice));
  }

  #store(slice: EndpointSlice): EndpointSlice {
    const stored = { ...slice, metadata: { ...slice.metadata, namespace: HOST_NS, uid: slice.metadata?.uid ?? `host-uid-${this.#next}`, resourceVersion: String(this.#next++) } };
    this.objects.set(stored.metadata.name ?? '', stored);
    return structuredClone(stored);
  }

  #name(path: string): string {
    return path.split('/').at(-1) ?? '';
  }

  get<T>(path: string): Promise<T> {
    const found = this.objects.get(this.#name(path));
    return found === undefined ? Promise.reject(apiError(404, 'NotFound', 'not found')) : Promise.resolve(structuredClone(found) as T);
  }

  create<T>(_path: string, body: T): Promise<T> {
    const slice = body as EndpointSlice;
    if (this.objects.has(slice.metadata?.name ?? '')) return Promise.reject(apiError(409, 'AlreadyExists', 'already exists'));
    // The server assigns uid and resourceVersion.
    const metadata = { ...slice.metadata };
    delete metadata.uid;
    delete metadata.resourceVersion;
    return Promise.resolve(this.#store({ ...slice, metadata }) as T);
  }

  update<T>(path: string, body: T): Promise<T> {
    const slice = body as EndpointSlice;
    const current = this.objects.get(this.#name(path));
    if (current === undefined) return Promise.reject(apiError(404, 'NotFound', 'not found'));
    if (current.metadata?.resourceVersion !== slice.metadata?.resourceVersion) return Promise.reject(apiError(409, 'Conflict', 'conflict'));
    if (current.addressType !== slice.addressType) return Promise.reject(apiError(422, 'Invalid', 'addressType: field is immutable'));
    return Promise.resolve(this.#store(slice) as T);
  }

  delete<T>(path: string, options?: { body?: object }): Promise<T> {
    const current = this.objects.get(this.#name(path));
    if (current === undefined) return Promise.reject(apiError(404, 'NotFound', 'not found'));
    const uid = (options?.body as { preconditions?: { uid?: string } } | undefined)?.preconditions?.uid;
    if (uid !== undefined && uid !== current.metadata?.uid) return Promise.reject(apiError(409, 'Conflict', 'precondition failed'));
    this.objects.delete(this.#name(path));
    return Promise.resolve({} as T);
  }
}

const NO_WRITES: ClusterWriter = {
  get: () => Promise.reject(new Error('unexpected virtual read')),
  create: () => Promise.reject(new Error('unexpected virtual create')),
  update: () => Promise.reject(new Error('unexpected virtual update')),
  delete: () => Promise.reject(new Error('unexpected virtual delete')),
};

function virtualSlice(name: string, service: string | undefined, extra: Partial<EndpointSlice> = {}, namespace = 'shop'): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, uid: `${name}-uid`, resourceVersion: '10', ...(service !== undefined ? { labels: { 'kubernetes.io/service-name': service } } : {}) },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    ...extra,
  };
}

/** The host copy vcsync writes for `virtual` (what a previous sync left). */
function ourCopy(virtual: EndpointSlice, extra: Partial<EndpointSlice> = {}): EndpointSlice {
  const translated = translator.hostMetadata({ virtual: virtual.metadata ?? {}, kind: 'discovery.k8s.io/v1, Kind=EndpointSlice' });
  if (!translated.synced) throw new Error('not placed');
  const service = virtual.metadata?.labels?.['kubernetes.io/service-name'] ?? '';
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...translated.metadata,
      labels: { ...translated.metadata.labels, 'kubernetes.io/service-name': `${service}-x-shop-x-vc`, 'endpointslice.kubernetes.io/managed-by': 'vcsync.vcluster.loft.sh' },
      uid: 'copy-uid',
    },
    addressType: virtual.addressType ?? 'IPv4',
    endpoints: virtual.endpoints ?? [],
    ports: virtual.ports ?? [],
    ...extra,
  };
}

function foreignSlice(name: string, labels: Record<string, string> = {}): EndpointSlice {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, uid: 'foreign-uid', labels: { owner: 'host-team', ...labels } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.9.9.9'] }] };
}

interface Row {
  name: string;
  key: string;
  virtual?: EndpointSlice;
  services: Record<string, Service>;
  host: EndpointSlice[];
  /** The outcome, or the code of the terminal error thrown. */
  outcome: Partial<ReconcileOutcome> | { terminal: string };
  /** The host slices after: name → what each must contain. */
  after: Record<string, Partial<EndpointSlice> & { uid?: string }>;
}

const OPEN: Service = { spec: {} };
const SELECTED: Service = { spec: { selector: { app: 'web' } } };
const web = virtualSlice('web-1', 'web');

const ROWS: Row[] = [
  {
    name: 'a slice of a selector-less Service, nothing on the host → created, with the host Service in service-name and vcsync as managed-by',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': OPEN }, host: [],
    outcome: { kind: 'synced', action: 'created' },
    after: { 'web-1-x-shop-x-vc': { addressType: 'IPv4', endpoints: web.endpoints ?? [], metadata: { labels: { 'kubernetes.io/service-name': 'web-x-shop-x-vc', 'endpointslice.kubernetes.io/managed-by': 'vcsync.vcluster.loft.sh' } } } },
  },
  {
    name: 'our copy up to date → unchanged',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': OPEN }, host: [ourCopy(web)],
    outcome: { kind: 'unchanged' },
    after: { 'web-1-x-shop-x-vc': { uid: 'copy-uid' } },
  },
  {
    name: 'our copy drifted on the host → updated in place',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': OPEN }, host: [ourCopy(web, { endpoints: [{ addresses: ['10.6.6.6'] }] })],
    outcome: { kind: 'synced', action: 'updated' },
    after: { 'web-1-x-shop-x-vc': { uid: 'copy-uid', endpoints: web.endpoints ?? [] } },
  },
  {
    name: 'the virtual slice changed its addressType → the copy is deleted and created (an update would be refused)',
    key: 'shop/web-1', virtual: { ...web, addressType: 'IPv6', endpoints: [{ addresses: ['fd00::1'] }] }, services: { 'shop/web': OPEN }, host: [ourCopy(web)],
    outcome: { kind: 'synced', action: 'recreated' },
    after: { 'web-1-x-shop-x-vc': { addressType: 'IPv6', endpoints: [{ addresses: ['fd00::1'] }] } },
  },
  {
    name: 'the Service has a selector, our copy on the host → the copy is deleted',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': SELECTED }, host: [ourCopy(web)],
    outcome: { kind: 'deleted' },
    after: {},
  },
  {
    name: 'the Service is missing → skipped, nothing written',
    key: 'shop/web-1', virtual: web, services: {}, host: [],
    outcome: { kind: 'skipped', cause: 'excluded' },
    after: {},
  },
  {
    name: 'a foreign slice holds the copy\'s name → deleted and replaced by the copy',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': OPEN }, host: [foreignSlice('web-1-x-shop-x-vc')],
    outcome: { kind: 'synced', action: 'created' },
    after: { 'web-1-x-shop-x-vc': { endpoints: web.endpoints ?? [], metadata: { labels: { 'vcluster.loft.sh/managed-by': 'vc' } } } },
  },
  {
    name: 'a plugin\'s slice holds the copy\'s name → left alone, terminal error',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': OPEN }, host: [foreignSlice('web-1-x-shop-x-vc', { 'vcluster.loft.sh/controlled-by': 'plugin' })],
    outcome: { terminal: 'HostObjectNotManaged' },
    after: { 'web-1-x-shop-x-vc': { uid: 'foreign-uid' } },
  },
  {
    name: 'the Service has a selector and a foreign slice holds the name → skipped, the foreign slice stays',
    key: 'shop/web-1', virtual: web, services: { 'shop/web': SELECTED }, host: [foreignSlice('web-1-x-shop-x-vc')],
    outcome: { kind: 'skipped', cause: 'excluded' },
    after: { 'web-1-x-shop-x-vc': { uid: 'foreign-uid' } },
  },
  {
    name: 'no service-name label → terminal error, nothing written',
    key: 'shop/orphan', virtual: virtualSlice('orphan', undefined), services: {}, host: [],
    outcome: { terminal: 'SliceWithoutService' },
    after: {},
  },
  {
    name: 'default/kubernetes → never synced',
    key: 'default/kubernetes', virtual: virtualSlice('kubernetes', 'kubernetes', {}, 'default'), services: { 'default/kubernetes': OPEN }, host: [],
    outcome: { kind: 'skipped', cause: 'never_synced' },
    after: {},
  },
  {
    name: 'the virtual slice is gone, our copy remains → deleted',
    key: 'shop/web-1', services: { 'shop/web': OPEN }, host: [ourCopy(web)],
    outcome: { kind: 'deleted' },
    after: {},
  },
];

describe('the EndpointSlices syncer, as a state table (virtual and host before → outcome and host after)', () => {
  it.each(ROWS)('$name', async (row) => {
    const host = new FakeHost(row.host);
    // The host informer selects this vcluster's label and keeps what the transform keeps.
    const cached = [...host.objects.values()].filter((s) => s.metadata?.labels?.['vcluster.loft.sh/managed-by'] === 'vc').map((s) => cachedHostSlice(s, false));
    const controller = new ToHostReconciler<EndpointSlice>({
      resource: endpointSlicesResource({ get: (key) => row.services[key] }),
      virtualCache: cacheOf(row.virtual !== undefined ? [row.virtual] : []),
      hostCache: cacheOf(cached),
      virtualClient: NO_WRITES,
      hostClient: host,
      state: { enabled: true, translator, patcher: passThrough },
    });
    if ('terminal' in row.outcome) {
      const thrown = await controller.reconcile(row.key).then(() => undefined, (error: unknown) => error);
      expect(thrown).toBeInstanceOf(TerminalError);
      expect((thrown as TerminalError).code).toBe(row.outcome.terminal);
    } else {
      expect(await controller.reconcile(row.key)).toMatchObject(row.outcome);
    }
    expect([...host.objects.keys()].sort()).toEqual(Object.keys(row.after).sort());
    for (const [name, want] of Object.entries(row.after)) {
      const { uid, ...fields } = want;
      const got = host.objects.get(name);
      expect(got).toMatchObject(fields);
      if (uid !== undefined) expect(got?.metadata?.uid).toBe(uid);
      else if (row.host.some((h) => h.metadata?.name === name)) expect(got?.metadata?.uid).not.toBe(row.host.find((h) => h.metadata?.name === name)?.metadata?.uid);
    }
  });
});

describe('the host slice labels in multi-namespace mode', () => {
  it('name the host Service by its own name in the mapped namespace', () => {
    const parsed = parseConfig('sync:\n  toHost:\n    namespaces:\n      enabled: true\n      mappings:\n        byName:\n          shop: host-shop\n', 'vcluster.yaml', registryConfigSchema());
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const multi = createTranslator({ vclusterName: 'vc', hostNamespace: HOST_NS, config: parsed.config });
    const resource = endpointSlicesResource({ get: () => ({ spec: {} }) });
    expect(resource.hostLabels?.(virtualSlice('web-1', 'web'), multi)?.['kubernetes.io/service-name']).toBe('web');
  });
});
