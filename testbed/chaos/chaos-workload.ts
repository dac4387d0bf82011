import { ApiError, isAlreadyExists, isConflict, isNotFound } from '#vcsync/apimachinery/index.js';
import { isRetryable } from '#vcsync/kube/kube-errors.js';
import type { KubeObject } from '#vcsync/kube/kube-object.js';
import type { RestClient } from '#vcsync/kube/rest-client.js';
import type { SeededRandom } from '../seeded-random.js';
import { OWNED_ACCESS_KEYS_PATH, TOKEN_REVIEWS_PATH, type ManagementAnswer } from './management-calls.js';

/** The kinds of operation the chaos workload applies. */
export const OPERATION_KINDS = [
  'create-endpoints',
  'update-endpoints',
  'delete-endpoints',
  'service-selector',
  'delete-service',
  'label-host-copy',
  'create-key',
  'disable-key',
  'delete-key',
  'review-key',
] as const;

/** One kind of operation of the workload. */
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** Relative weights of the operation kinds. */
const WEIGHTS: Readonly<Record<OperationKind, number>> = Object.freeze({
  'create-endpoints': 24,
  'update-endpoints': 30,
  'delete-endpoints': 10,
  'service-selector': 10,
  'delete-service': 5,
  'label-host-copy': 8,
  'create-key': 7,
  'disable-key': 3,
  'delete-key': 3,
  'review-key': 8,
});

/** What the workload expects of one virtual name, by the operations it applied. */
export interface VirtualEntry {
  namespace: string;
  name: string;
  /** The Service: absent, without selector (its Endpoints are synced), or with one (they are not). */
  service: 'none' | 'plain' | 'selector';
  /** The Endpoints' one address and its `chaos` label value, or undefined when absent. */
  endpoints: { ip: string; label: string } | undefined;
  /**
   * Whether the host copy of the Endpoints as they are now got the {@link HOST_OWNER_LABEL} from
   * someone on the host. Nobody removes it: it stays on the host copy, flowed back into the
   * virtual object or kept as a host-only label, until the copy goes (Endpoints deleted, Service
   * deleted or given a selector).
   */
  hostLabelled: boolean;
}

/** The label the workload sets on host copies, as a host controller or an operator would. */
export const HOST_OWNER_LABEL = 'chaos-owner';

/** The host side as the workload writes it: a client without faults and the namespace of the copies. */
export interface HostAccess {
  client: RestClient;
  namespace: string;
}

/** What the workload expects of one access key. */
export interface KeyEntry {
  state: 'enabled' | 'disabled' | 'deleted';
  /** The key's value, unless its create answer was lost (then it was created on a retry). */
  value: string | undefined;
}

/** The management API as the workload uses it: one call, and the admin key. */
export interface ManagementAccess {
  call(method: string, path: string, options?: { key?: string; body?: unknown; contentType?: string }): Promise<ManagementAnswer>;
  adminKey(): string;
}

/** Options of {@link ChaosWorkload}. */
export interface ChaosWorkloadOptions {
  random: SeededRandom;
  /** A client of the virtual API server (direct, without faults). */
  virtual: RestClient;
  management: ManagementAccess;
  /** The host side, for host-side writes to the copies (reverse sync under faults). */
  host: HostAccess;
  /** Virtual namespaces the names spread over. */
  namespaces: readonly string[];
  /** Names per namespace. */
  namesPerNamespace: number;
  /** How long one operation is retried through restarts before the run fails, ms. */
  retryForMs: number;
}

const RETRY_PAUSE_MS = 100;

/**
 * A seeded random workload on the virtual side (Endpoints created, updated, deleted; Services
 * created, switched between with and without selector, deleted), on the host side (host copies
 * labelled by someone else) and on the management API
 * (access keys created, disabled, deleted; token reviews), with the state every operation
 * applied: what the host and the key store must converge to. Operations are retried through
 * connection failures and 5xx answers (restarts, faults) with the outcome of an uncertain retry
 * accepted (AlreadyExists after a create, NotFound after a delete). A token review that
 * disagrees with the keys' states is recorded in {@link reviewMismatches}.
 */
export class ChaosWorkload {
  readonly virtualEntries = new Map<string, VirtualEntry>();
  readonly keys = new Map<string, KeyEntry>();
  readonly counts: Record<OperationKind, number> = Object.fromEntries(OPERATION_KINDS.map((kind) => [kind, 0])) as Record<OperationKind, number>;
  readonly reviewMismatches: string[] = [];
  /** Host copies the workload labelled on the host (see {@link VirtualEntry.hostLabelled}). */
  hostLabelsSet = 0;
  /**
   * Merge patches of virtual Endpoints the server answered 409 (concurrent writes, the syncer's
   * reverse sync among them, won each of its own retries), sent again.
   */
  patchConflicts = 0;
  #keySerial = 0;

  constructor(readonly options: ChaosWorkloadOptions) {
    for (const namespace of options.namespaces) {
      for (let index = 0; index < options.namesPerNamespace; index += 1) {
        const name = `svc-${index}`;
        this.virtualEntries.set(`${namespace}/${name}`, { namespace, name, service: 'none', endpoints: undefined, hostLabelled: false });
      }
    }
  }

  /** Draws one operation kind and applies it. */
  async step(): Promise<void> {
    const { random } = this.options;
    const total = OPERATION_KINDS.reduce((sum, kind) => sum + WEIGHTS[kind], 0);
    let draw = random.next() * total;
    let kind: OperationKind = OPERATION_KINDS[0];
    for (const candidate of OPERATION_KINDS) {
      draw -= WEIGHTS[candidate];
      if (draw < 0) {
        kind = candidate;
        break;
      }
    }
    await this.apply(kind);
    this.counts[kind] += 1;
  }

  /** Applies one operation of `kind` (one of the same family when nothing fits, e.g. no key to disable). */
  async apply(kind: OperationKind): Promise<void> {
    const { random } = this.options;
    const entries = [...this.virtualEntries.values()];
    const entry = random.pick(entries);
    switch (kind) {
      case 'create-endpoints':
      case 'update-endpoints':
        return this.#writeEndpoints(entry, `10.${random.int(250)}.${random.int(250)}.${1 + random.int(250)}`, `v${random.int(1000)}`);
      case 'delete-endpoints':
        return this.#deleteEndpoints(entry);
      case 'service-selector':
        return this.#writeService(entry, entry.service === 'plain' ? 'selector' : 'plain');
      case 'delete-service':
        return this.#deleteService(entry);
      case 'label-host-copy':
        return this.#labelHostCopy(entry, `o${random.int(1000)}`);
      case 'create-key':
        return this.#createKey();
      case 'disable-key':
      case 'delete-key': {
        const live = [...this.keys.entries()].filter(([, key]) => key.state !== 'deleted');
        if (live.length === 0) return this.#createKey();
        const [name] = random.pick(live);
        return kind === 'disable-key' ? this.#disableKey(name) : this.#deleteKey(name);
      }
      case 'review-key': {
        const known = [...this.keys.entries()].filter(([, key]) => key.value !== undefined);
        if (known.length === 0) return this.#createKey();
        const [name, key] = random.pick(known);
        return this.#review(name, key);
      }
    }
  }

  #path(entry: VirtualEntry, resource: 'services' | 'endpoints', named = true): string {
    return `/api/v1/namespaces/${entry.namespace}/${resource}${named ? `/${entry.name}` : ''}`;
  }

  async #writeEndpoints(entry: VirtualEntry, ip: string, label: string): Promise<void> {
    if (entry.service === 'none') await this.#writeService(entry, this.options.random.chance(0.8) ? 'plain' : 'selector');
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: entry.name, namespace: entry.namespace, labels: { chaos: label }, annotations: { 'chaos.vcsync.dev/ip': ip } },
      subsets: [{ addresses: [{ ip }], ports: [{ port: 8080, protocol: 'TCP' }] }],
    } as KubeObject;
    const client = this.options.virtual;
    if (entry.endpoints === undefined) {
      await this.#retry(`create Endpoints ${entry.namespace}/${entry.name}`, async (retried) => {
        try {
          await client.create(this.#path(entry, 'endpoints', false), body);
        } catch (error) {
          // Created by an attempt whose answer was lost: make it this operation's content.
          if (!(retried && isAlreadyExists(error))) throw error;
          await this.#mergePatch(this.#path(entry, 'endpoints'), body);
        }
      });
    } else {
      await this.#retry(`update Endpoints ${entry.namespace}/${entry.name}`, () => this.#mergePatch(this.#path(entry, 'endpoints'), body));
    }
    entry.endpoints = { ip, label };
  }

  async #deleteEndpoints(entry: VirtualEntry): Promise<void> {
    if (entry.endpoints === undefined) return this.#writeEndpoints(entry, '10.0.0.1', 'v0');
    await this.#retry(`delete Endpoints ${entry.namespace}/${entry.name}`, (retried) => this.#deleteOrGone(this.#path(entry, 'endpoints'), retried));
    entry.endpoints = undefined;
    entry.hostLabelled = false;
  }

  /**
   * Labels the host copy of the entry's Endpoints on the host, as a host controller would: the
   * change must flow back into the virtual object or stay on the host, never vanish. Only a copy
   * of the virtual object as it is now (its uid) counts: a copy of an older incarnation the syncer
   * has not replaced yet is left alone. Without a synced copy (none yet, or none to have), the
   * Endpoints are updated instead.
   */
  async #labelHostCopy(entry: VirtualEntry, owner: string): Promise<void> {
    if (entry.endpoints === undefined || entry.service !== 'plain') return this.#writeEndpoints(entry, '10.0.0.2', 'v1');
    const { client, namespace } = this.options.host;
    let labelled = false;
    await this.#retry(`label the host copy of ${entry.namespace}/${entry.name}`, async () => {
      const virtual = await this.options.virtual.get<KubeObject>(this.#path(entry, 'endpoints'));
      const copies = await client.list<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`);
      const copy = copies.items.find((item) => {
        const annotations = item.metadata?.annotations ?? {};
        return annotations['vcluster.loft.sh/object-name'] === entry.name && annotations['vcluster.loft.sh/object-namespace'] === entry.namespace;
      });
      const uid = virtual.metadata?.uid ?? '';
      if (copy === undefined || copy.metadata?.annotations?.['vcluster.loft.sh/object-uid'] !== uid) return;
      const path = `/api/v1/namespaces/${namespace}/endpoints/${copy.metadata?.name ?? ''}`;
      try {
        await client.patch(path, 'json', [
          { op: 'test', path: '/metadata/annotations/vcluster.loft.sh~1object-uid', value: uid },
          { op: 'add', path: `/metadata/labels/${HOST_OWNER_LABEL}`, value: owner },
        ]);
        labelled = true;
      } catch (error) {
        // Replaced or deleted by the syncer meanwhile: that copy is not the one to label.
        if (isNotFound(error) || (error instanceof ApiError && (error.code === 422 || error.code === 409))) return;
        throw error;
      }
    });
    if (!labelled) return;
    entry.hostLabelled = true;
    this.hostLabelsSet += 1;
  }

  async #writeService(entry: VirtualEntry, next: 'plain' | 'selector'): Promise<void> {
    const client = this.options.virtual;
    const selector = next === 'selector' ? { app: entry.name } : null;
    if (entry.service === 'none') {
      const body = { apiVersion: 'v1', kind: 'Service', metadata: { name: entry.name, namespace: entry.namespace }, spec: { ports: [{ port: 80 }], ...(selector !== null ? { selector } : {}) } };
      await this.#retry(`create Service ${entry.namespace}/${entry.name}`, async (retried) => {
        try {
          await client.create(this.#path(entry, 'services', false), body);
        } catch (error) {
          if (!(retried && isAlreadyExists(error))) throw error;
          await client.patch(this.#path(entry, 'services'), 'merge', { spec: { selector } });
        }
      });
    } else {
      await this.#retry(`set the selector of Service ${entry.namespace}/${entry.name}`, () => client.patch(this.#path(entry, 'services'), 'merge', { spec: { selector } }));
    }
    entry.service = next;
    // A Service with a selector takes the host copy away.
    if (next === 'selector') entry.hostLabelled = false;
  }

  async #deleteService(entry: VirtualEntry): Promise<void> {
    if (entry.service === 'none') return this.#writeService(entry, 'plain');
    await this.#retry(`delete Service ${entry.namespace}/${entry.name}`, (retried) => this.#deleteOrGone(this.#path(entry, 'services'), retried));
    entry.service = 'none';
    entry.hostLabelled = false;
  }

  async #deleteOrGone(path: string, retried: boolean): Promise<void> {
    try {
      await this.options.virtual.delete(path);
    } catch (error) {
      if (!(retried && isNotFound(error))) throw error;
    }
  }

  async #createKey(): Promise<void> {
    this.#keySerial += 1;
    const name = `chaos-key-${this.#keySerial}`;
    const body = { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'chaos' } };
    let value: string | undefined;
    await this.#manage(`create the key ${name}`, async (retried) => {
      const answer = await this.options.management.call('POST', OWNED_ACCESS_KEYS_PATH, { key: this.options.management.adminKey(), body });
      if (answer.status === 201) value = (answer.body as { spec: { key: string } }).spec.key;
      else if (!(retried && answer.status === 409)) return answer;
      return undefined;
    });
    this.keys.set(name, { state: 'enabled', value });
  }

  async #disableKey(name: string): Promise<void> {
    await this.#manage(`disable the key ${name}`, async () => {
      const answer = await this.options.management.call('PATCH', `${OWNED_ACCESS_KEYS_PATH}/${name}`, {
        key: this.options.management.adminKey(),
        contentType: 'application/merge-patch+json',
        body: { spec: { disabled: true } },
      });
      return answer.status === 200 ? undefined : answer;
    });
    const key = this.keys.get(name);
    if (key !== undefined) key.state = 'disabled';
  }

  async #deleteKey(name: string): Promise<void> {
    await this.#manage(`delete the key ${name}`, async (retried) => {
      const answer = await this.options.management.call('DELETE', `${OWNED_ACCESS_KEYS_PATH}/${name}`, { key: this.options.management.adminKey() });
      return answer.status === 200 || (retried && answer.status === 404) ? undefined : answer;
    });
    const key = this.keys.get(name);
    if (key !== undefined) key.state = 'deleted';
  }

  async #review(name: string, key: KeyEntry): Promise<void> {
    const authenticated = await this.reviewToken(key.value as string, `review the key ${name}`);
    if (authenticated !== (key.state === 'enabled')) {
      this.reviewMismatches.push(`token review of the ${key.state} key ${name} answered authenticated: ${authenticated}`);
    }
  }

  /** Whether the management API's TokenReview authenticates `token` (retried through failures). */
  async reviewToken(token: string, what: string): Promise<boolean> {
    let authenticated = false;
    await this.#manage(what, async () => {
      const answer = await this.options.management.call('POST', TOKEN_REVIEWS_PATH, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
      if (answer.status !== 200) return answer;
      authenticated = (answer.body as { status?: { authenticated?: boolean } }).status?.authenticated === true;
      return undefined;
    });
    return authenticated;
  }

  /** Retries a management call while it fails to connect or answers 5xx/429; any other non-success fails the run. */
  async #manage(what: string, attempt: (retried: boolean) => Promise<ManagementAnswer | undefined>): Promise<void> {
    await this.#retry(what, async (retried) => {
      const failed = await attempt(retried);
      if (failed === undefined) return;
      const transient = failed.status >= 500 || failed.status === 429;
      const error = new Error(`${what}: the management API answered ${failed.status}: ${JSON.stringify(failed.body)}`);
      throw transient ? error : Object.assign(error, { permanent: true });
    });
  }

  /** A merge patch of a virtual object; a 409 after the server's own retries is counted and tried again, as a client would. */
  async #mergePatch(path: string, body: KubeObject): Promise<void> {
    try {
      await this.options.virtual.patch(path, 'merge', body);
    } catch (error) {
      if (!isConflict(error)) throw error;
      this.patchConflicts += 1;
      throw new Error(`PATCH ${path} answered 409 after the server's own retries`, { cause: error });
    }
  }

  /** Runs `attempt` until it succeeds; `retried` tells it whether an earlier attempt may have taken effect. */
  async #retry(what: string, attempt: (retried: boolean) => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + this.options.retryForMs;
    let retried = false;
    for (;;) {
      try {
        await attempt(retried);
        return;
      } catch (error) {
        // A refusal that no retry changes (a wrong model, a bug) fails the run at once.
        if ((error as { permanent?: boolean }).permanent === true || (error instanceof ApiError && !isRetryable(error) && error.code !== 502)) throw error;
        if (Date.now() > deadline) throw new Error(`${what} still failed after ${this.options.retryForMs} ms: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        retried = true;
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      }
    }
  }
}
