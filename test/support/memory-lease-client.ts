import { ApiError, statusFromHttpCode } from '../../src/apimachinery/index.js';
import { TransportError } from '../../src/kube/kube-errors.js';
import type { Lease, LeaseClient } from '../../src/kube/leader-elector.js';
import type { CallOptions } from '../../src/kube/rest-client.js';

/**
 * One Lease in memory with resourceVersion checks; `down` makes every call fail like a lost
 * connection; `stalled` makes every call hang (a partition) until its signal aborts;
 * `namespaceMissing` makes create answer as a real server does for a missing namespace.
 */
export class MemoryLeaseClient implements LeaseClient {
  lease: Lease | undefined;
  calls: string[] = [];
  down = false;
  stalled = false;
  /** While set, every call waits for it before answering, whatever its signal (a server that answers late). */
  gate: Promise<void> | undefined;
  namespaceMissing = false;
  #rv = 0;

  async get<T>(path: string, options?: CallOptions): Promise<T> {
    await this.#enter('get', options);
    if (this.lease === undefined) throw new ApiError({ httpStatus: 404, status: statusFromHttpCode(404, 'no lease'), verb: 'GET', path });
    return structuredClone(this.lease) as T;
  }

  async create<T>(path: string, body: T, options?: CallOptions): Promise<T> {
    await this.#enter('create', options);
    if (this.namespaceMissing) {
      const status = { kind: 'Status' as const, reason: 'NotFound', code: 404, message: 'namespaces "ns" not found', details: { name: 'ns', kind: 'namespaces' } };
      throw new ApiError({ httpStatus: 404, status, verb: 'POST', path });
    }
    if (this.lease !== undefined) throw new ApiError({ httpStatus: 409, status: { kind: 'Status', reason: 'AlreadyExists', code: 409 }, verb: 'POST', path });
    return this.#store(body as Lease) as T;
  }

  async update<T>(path: string, body: T, options?: CallOptions): Promise<T> {
    await this.#enter('update', options);
    const lease = body as Lease;
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      throw new ApiError({ httpStatus: 409, status: { kind: 'Status', reason: 'Conflict', code: 409 }, verb: 'PUT', path });
    }
    return this.#store(lease) as T;
  }

  async #enter(call: string, options: CallOptions | undefined): Promise<void> {
    this.calls.push(call);
    if (this.gate !== undefined) await this.gate;
    if (this.down) throw new TransportError('connection refused', new Error('ECONNREFUSED'));
    if (!this.stalled) return;
    const signal = options?.signal;
    await new Promise<never>((_, reject) => {
      if (signal === undefined) return;
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  #store(lease: Lease): Lease {
    this.#rv += 1;
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(this.#rv) } };
    return structuredClone(this.lease);
  }
}
