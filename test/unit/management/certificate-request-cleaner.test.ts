import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { CertificateRequestCleaner } from '../../../src/management/certificate-request-cleaner.js';
import { waitFor } from '../../support/wait-for.js';

const LABEL = 'management.vcsync.dev/kube-config-request';
const COLLECTION = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

/** Records the delete calls; `refuseCollection` answers a collection delete with that error. */
class FakeDeleter {
  readonly paths: string[] = [];
  refuseCollection: Error | undefined;

  async delete<T>(path: string): Promise<T> {
    this.paths.push(path);
    if (path.includes('?') && this.refuseCollection !== undefined) throw this.refuseCollection;
    return {} as T;
  }
}

const collectionDelete = (batch: string): string => `${COLLECTION}?labelSelector=${encodeURIComponent(`${LABEL}=${batch}`)}`;

describe('CertificateRequestCleaner', () => {
  const cleaners: CertificateRequestCleaner[] = [];
  const start = (client: FakeDeleter, options: { batchWindowMs?: number; maxBatchSize?: number } = {}): CertificateRequestCleaner => {
    const cleaner = new CertificateRequestCleaner({ client, labelKey: LABEL, batchWindowMs: options.batchWindowMs ?? 10, maxBatchSize: options.maxBatchSize ?? 64 });
    cleaners.push(cleaner);
    return cleaner;
  };
  afterEach(async () => {
    for (const cleaner of cleaners.splice(0)) await cleaner.close();
  });

  it('the requests of one window share a batch, deleted with one collection delete once all are finished', async () => {
    const client = new FakeDeleter();
    const cleaner = start(client, { batchWindowMs: 20 });
    const a = cleaner.join();
    const b = cleaner.join();
    expect(b.batch).toBe(a.batch);
    expect(a.batch).toMatch(/^[0-9a-f]{8}-\d+$/);
    a.finish('csr-a');
    a.finish('csr-a');
    // Closed by its window, but b is not finished: nothing deleted yet.
    const next = await waitFor('a new batch after the window', () => {
      const membership = cleaner.join();
      if (membership.batch !== a.batch) return membership;
      membership.finish(undefined);
      return undefined;
    });
    expect(client.paths).toEqual([]);
    b.finish('csr-b');
    await waitFor('the batch to be deleted', () => client.paths.length === 1);
    expect(client.paths).toEqual([collectionDelete(a.batch)]);
    next.finish(undefined);
  });

  it('a full batch closes at once; a batch without created requests deletes nothing', async () => {
    const client = new FakeDeleter();
    const cleaner = start(client, { batchWindowMs: 60_000, maxBatchSize: 2 });
    const a = cleaner.join();
    const b = cleaner.join();
    const c = cleaner.join();
    expect(c.batch).not.toBe(a.batch);
    a.finish('csr-a');
    b.finish('csr-b');
    await waitFor('the full batch to be deleted', () => client.paths.length === 1);
    expect(client.paths).toEqual([collectionDelete(a.batch)]);
    c.finish(undefined);
    await cleaner.close();
    expect(client.paths).toHaveLength(1);
  });

  it('a cluster that refuses deleting the collection gets each request deleted by name, from then on without trying', async () => {
    const client = new FakeDeleter();
    client.refuseCollection = new ApiError('Forbidden', 'certificatesigningrequests is forbidden: User cannot deletecollection');
    const cleaner = start(client, { batchWindowMs: 60_000, maxBatchSize: 2 });
    const first = [cleaner.join(), cleaner.join()];
    first[0]?.finish('csr-1');
    first[1]?.finish('csr-2');
    await waitFor('the requests to be deleted one by one', () => client.paths.length === 3);
    expect(client.paths.slice(1).sort()).toEqual([`${COLLECTION}/csr-1`, `${COLLECTION}/csr-2`]);
    const second = [cleaner.join(), cleaner.join()];
    second[0]?.finish('csr-3');
    second[1]?.finish('csr-4');
    await waitFor('the next batch deleted by name', () => client.paths.length === 5);
    expect(client.paths.slice(3).sort()).toEqual([`${COLLECTION}/csr-3`, `${COLLECTION}/csr-4`]);
  });

  it('close deletes the open batch when its requests are finished, and waits for it', async () => {
    const client = new FakeDeleter();
    const cleaner = start(client, { batchWindowMs: 60_000 });
    const membership = cleaner.join();
    membership.finish('csr-a');
    expect(client.paths).toEqual([]);
    await cleaner.close();
    expect(client.paths).toEqual([collectionDelete(membership.batch)]);
  });
});
