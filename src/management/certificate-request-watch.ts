/**
 * The outcome of vcsync's own CertificateSigningRequests (signed, refused, deleted), learnt from
 * one shared, label-selected watch of the virtual cluster's CSRs instead of a read per request:
 * a kube config makes one call fewer on both sides and sees its certificate as soon as the
 * signer writes it.
 */
import { isNotFound } from '../apimachinery/index.js';
import { collectionPath, type KubeMetrics, type KubeObject, type ListerWatcher, Reflector, type ResourceType } from '../kube/index.js';
import { setDeadline } from '../observe/deadline.js';
import { silentLogger, type Logger } from '../observe/logger.js';

/** certificates.k8s.io/v1 CertificateSigningRequests. */
export const CSR_RESOURCE: ResourceType = Object.freeze({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' });

/** One condition of a CertificateSigningRequest's status. */
export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** What the watch reads of a CertificateSigningRequest. */
export interface CsrObject extends KubeObject {
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

/**
 * How waiting for a request ended: `issued` with the certificate (base64 PEM, as in
 * `status.certificate`), `refused` with the Denied or Failed condition, `deleted` (by someone
 * else before it was signed), `timeout`, or `cancelled` by the waiter.
 */
export type SigningOutcome =
  | { kind: 'issued'; certificate: string }
  | { kind: 'refused'; condition: CsrCondition }
  | { kind: 'deleted' }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/** A registered wait: `outcome` never rejects; `cancel` ends it (`cancelled`) if still open. Idempotent. */
export interface SigningWait {
  readonly outcome: Promise<SigningOutcome>;
  cancel(): void;
}

/** The calls of the watch: list and watch for the shared watch, get for the backstop reads. */
export type CsrWatchClient = ListerWatcher & { get<T>(path: string): Promise<T> };

/** Options of {@link CertificateRequestWatch}. */
export interface CertificateRequestWatchOptions {
  /** The virtual cluster's client. Required. */
  client: CsrWatchClient;
  /** The label selector of the requests to follow (those vcsync created). Required. */
  labelSelector: string;
  /** The watch is stopped this long after its last waiter went, in ms. Default 60 000. */
  idleStopMs?: number;
  /**
   * While the watch is connected a waiter still reads its request this often, in case an event
   * was lost, in ms. Default 2 000. While it is not (starting, backing off, refused) a waiter
   * reads it every 25 ms doubling to 500 ms, as without a watch.
   */
  backstopReadMs?: number;
  /** Watch metrics (informer `kube-config-csrs`). Default a private registry. */
  metrics?: KubeMetrics;
  /** Logger. Default silent. */
  logger?: Logger;
}

/** The first read of a request while the watch is not connected, in ms; doubled up to {@link MAX_POLL_MS}. */
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/** What a request's current state says, or undefined while it waits for the signer. */
export function signingOutcomeOf(object: CsrObject): SigningOutcome | undefined {
  const certificate = object.status?.certificate;
  if (certificate !== undefined && certificate !== '') return { kind: 'issued', certificate };
  const conditions = object.status?.conditions ?? [];
  const refused = conditions.find((condition) => (condition.type === 'Denied' || condition.type === 'Failed') && condition.status === 'True');
  return refused !== undefined ? { kind: 'refused', condition: refused } : undefined;
}

interface Waiter {
  settle(outcome: SigningOutcome): void;
}

/**
 * Waiters by request name, resolved from one shared watch (a {@link Reflector}: list, then watch
 * from the list's resourceVersion, restarted with backoff, relisting on 410) of the requests the
 * label selector picks. The watch starts with the first waiter and stops `idleStopMs` after the
 * last one, or on {@link close}. A waiter registered before its request can change (before the
 * approval) sees every later change: from the running watch, or from the list of the watch that
 * starts for it. Backstop reads (see `backstopReadMs`) cover a watch the cluster refuses or that
 * is down. Does no I/O until the first {@link wait}.
 */
export class CertificateRequestWatch {
  readonly #options: Readonly<Required<Omit<CertificateRequestWatchOptions, 'metrics'>>> & Pick<CertificateRequestWatchOptions, 'metrics'>;
  readonly #waiters = new Map<string, Waiter>();
  #running: { reflector: Reflector<CsrObject>; stop: AbortController; done: Promise<void> } | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: CertificateRequestWatchOptions) {
    this.#options = Object.freeze({
      ...options,
      idleStopMs: options.idleStopMs ?? 60_000,
      backstopReadMs: options.backstopReadMs ?? 2_000,
      logger: options.logger ?? silentLogger(),
    });
  }

  /**
   * Waits at most `timeoutMs` for the outcome of the request `name` (one waiter per name; a
   * second replaces the first, which ends `cancelled`). Register before approving the request.
   */
  wait(name: string, timeoutMs: number): SigningWait {
    let settle!: (outcome: SigningOutcome) => void;
    const outcome = new Promise<SigningOutcome>((resolve) => (settle = resolve));
    let pollTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const waiter: Waiter = {
      settle: (result) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        clearTimeout(pollTimer);
        if (this.#waiters.get(name) === waiter) this.#waiters.delete(name);
        if (this.#waiters.size === 0) this.#scheduleIdleStop();
        settle(result);
      },
    };
    this.#waiters.get(name)?.settle({ kind: 'cancelled' });
    this.#waiters.set(name, waiter);
    // Decided after the next read, so a certificate that arrived in time is not timed out.
    const timeout = setDeadline(() => waiter.settle({ kind: 'timeout' }), timeoutMs);
    this.#ensureRunning();
    const path = `${collectionPath(CSR_RESOURCE)}/${encodeURIComponent(name)}`;
    let pollMs = FIRST_POLL_MS;
    const schedulePoll = (): void => {
      const connected = this.#running?.reflector.connected ?? false;
      pollTimer = setTimeout(poll, connected ? this.#options.backstopReadMs : pollMs);
      pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
    };
    const poll = (): void => {
      this.#options.client.get<CsrObject>(path).then(
        (current) => {
          const result = signingOutcomeOf(current);
          if (result !== undefined) waiter.settle(result);
          else if (!settled) schedulePoll();
        },
        (error: unknown) => {
          // A failed read is retried at the next poll; a request deleted meanwhile ends the wait.
          if (isNotFound(error)) waiter.settle({ kind: 'deleted' });
          else if (!settled) schedulePoll();
        },
      );
    };
    schedulePoll();
    return { outcome, cancel: () => waiter.settle({ kind: 'cancelled' }) };
  }

  /** Stops the watch and waits for it; later waiters only read their requests. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    await this.#stop();
  }

  #observe(object: CsrObject, deleted: boolean): void {
    const name = object.metadata?.name;
    if (name === undefined) return;
    const waiter = this.#waiters.get(name);
    if (waiter === undefined) return;
    const outcome = signingOutcomeOf(object) ?? (deleted ? { kind: 'deleted' as const } : undefined);
    if (outcome !== undefined) waiter.settle(outcome);
  }

  #ensureRunning(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#running !== undefined || this.#closed) return;
    const { client, labelSelector, metrics, logger } = this.#options;
    const reflector = new Reflector<CsrObject>(
      { name: 'kube-config-csrs', client, resource: CSR_RESOURCE, labelSelector, ...(metrics !== undefined ? { metrics } : {}), logger },
      {
        replace: (items) => {
          for (const item of items) this.#observe(item, false);
        },
        apply: (type, object) => this.#observe(object, type === 'DELETED'),
        bookmark: () => undefined,
      },
    );
    const stop = new AbortController();
    // run() never rejects for API or transport errors; anything else is a bug worth a log line.
    const done = reflector.run(stop.signal).catch((err: unknown) => logger.error({ err }, 'The watch of kube-config certificate requests stopped'));
    this.#running = { reflector, stop, done };
  }

  #scheduleIdleStop(): void {
    if (this.#running === undefined || this.#closed) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      // #stop never rejects (the run's end is caught where it starts).
      if (this.#waiters.size === 0) this.#stop().catch(() => undefined);
    }, this.#options.idleStopMs);
    this.#idleTimer.unref();
  }

  async #stop(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    running.stop.abort();
    await running.done;
  }
}
