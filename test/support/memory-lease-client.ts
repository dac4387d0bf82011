import { ApiError, TransportError, statusFromHttpCode } from '../../src/kube/api-error.js';
import type { Lease, LeaseClient } from '../../src/kube/leader-elector.js';

/**
 * One Lease in memory with resourceVersion checks; `down` makes every call fail like a lost
 * connection; `namespaceMissing` makes create answer as a real server does for a missing namespace.
 */
export class MemoryLeaseClient implements LeaseClient {
  lease: Lease | undefined;
  calls: string[] = [];
  down = false;
  namespaceMissing = false;
  #rv = 0;

  async get<T>(path: string): Promise<T> {
    this.#enter('get');
    if (this.lease === undefined) throw new ApiError({ httpStatus: 404, status: statusFromHttpCode(404, 'no lease'), verb: 'GET', path });
    return structuredClone(this.lease) as T;
  }

  async create<T>(path: string, body: T): Promise<T> {
    this.#enter('create');
    if (this.namespaceMissing) {
      const status = { kind: 'Status' as const, reason: 'NotFound', code: 404, message: 'namespaces "ns" not found', details: { name: 'ns', kind: 'namespaces' } };
      throw new ApiError({ httpStatus: 404, status, verb: 'POST', path });
    }
    if (this.lease !== undefined) throw new ApiError({ httpStatus: 409, status: { kind: 'Status', reason: 'AlreadyExists', code: 409 }, verb: 'POST', path });
    return this.#store(body as Lease) as T;
  }

  async update<T>(path: string, body: T): Promise<T> {
    this.#enter('update');
    const lease = body as Lease;
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      throw new ApiError({ httpStatus: 409, status: { kind: 'Status', reason: 'Conflict', code: 409 }, verb: 'PUT', path });
    }
    return this.#store(lease) as T;
  }

  #enter(call: string): void {
    this.calls.push(call);
    if (this.down) throw new TransportError('connection refused', new Error('ECONNREFUSED'));
  }

  #store(lease: Lease): Lease {
    this.#rv += 1;
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(this.#rv) } };
    return structuredClone(this.lease);
  }
}
