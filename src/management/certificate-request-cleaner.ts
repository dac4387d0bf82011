/**
 * Deletes vcsync's finished CertificateSigningRequests in batches, one deletecollection call per
 * batch instead of one delete per request: a client-certificate kube config then makes three
 * calls on the virtual cluster (create, approve, a share of a batch's delete) instead of four.
 */
import { randomBytes } from 'node:crypto';
import { isForbidden, isMethodNotSupported, isNotFound } from '../apimachinery/index.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import type { RestClient } from '../kube/rest-client.js';
import { CSR_COLLECTION } from './management-constants.js';

/** Options of {@link CertificateRequestCleaner}. */
export interface CertificateRequestCleanerOptions {
  /** The virtual cluster's client. Required. */
  client: Pick<RestClient, 'delete'>;
  /** The label whose value names a request's batch (the requests carry it from their create). Required. */
  labelKey: string;
  /** A batch takes requests for this long after its first, in ms. Default 100. */
  batchWindowMs?: number;
  /** A batch takes at most this many requests. Default 64. */
  maxBatchSize?: number;
  /** Logger. Default silent. */
  logger?: Logger;
}

/** A request's membership of a batch: the label value to create it with, and the call that says it is finished. */
export interface BatchMembership {
  /** The value of the batch label for the request. */
  readonly batch: string;
  /**
   * The request is finished (its outcome known, or it was never created: `name` undefined); its
   * batch is deleted once it is closed and all its requests are finished. Idempotent.
   */
  finish(name: string | undefined): void;
}

interface Batch {
  readonly id: string;
  readonly names: string[];
  members: number;
  unfinished: number;
  closed: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Groups requests into batches (a label value per batch, unique to this process), closes a batch
 * `batchWindowMs` after its first request or at `maxBatchSize`, and deletes a closed batch whose
 * requests are all finished with one `DELETE` of the collection selected by its label. A cluster
 * that refuses deletecollection (403, 405, 404) gets the requests deleted one by one from then on;
 * a failed delete is not retried (the cluster's CSR cleaner collects finished requests within an
 * hour). Does no I/O until a batch is deleted; {@link close} deletes what is finished and waits.
 */
export class CertificateRequestCleaner {
  readonly #options: Readonly<Required<CertificateRequestCleanerOptions>>;
  readonly #prefix = randomBytes(4).toString('hex');
  readonly #deleting = new Set<Promise<void>>();
  #sequence = 0;
  #open: Batch | undefined;
  #collectionRefused = false;

  constructor(options: CertificateRequestCleanerOptions) {
    this.#options = Object.freeze({
      ...options,
      batchWindowMs: options.batchWindowMs ?? 100,
      maxBatchSize: options.maxBatchSize ?? 64,
      logger: options.logger ?? silentLogger(),
    });
  }

  /** Joins the open batch (opening one when none is). */
  join(): BatchMembership {
    const batch = this.#open ?? this.#openBatch();
    batch.members += 1;
    batch.unfinished += 1;
    if (batch.members >= this.#options.maxBatchSize) this.#closeBatch(batch);
    let finished = false;
    return {
      batch: batch.id,
      finish: (name) => {
        if (finished) return;
        finished = true;
        if (name !== undefined && name !== '') batch.names.push(name);
        batch.unfinished -= 1;
        if (batch.closed && batch.unfinished === 0) this.#delete(batch);
      },
    };
  }

  /** Closes the open batch (deleted once its requests are finished) and waits for the deletes in flight. */
  async close(): Promise<void> {
    if (this.#open !== undefined) this.#closeBatch(this.#open);
    while (this.#deleting.size > 0) await Promise.all(this.#deleting);
  }

  #openBatch(): Batch {
    this.#sequence += 1;
    const batch: Batch = { id: `${this.#prefix}-${this.#sequence}`, names: [], members: 0, unfinished: 0, closed: false, timer: undefined };
    batch.timer = setTimeout(() => this.#closeBatch(batch), this.#options.batchWindowMs);
    batch.timer.unref();
    this.#open = batch;
    return batch;
  }

  #closeBatch(batch: Batch): void {
    if (batch.closed) return;
    batch.closed = true;
    clearTimeout(batch.timer);
    if (this.#open === batch) this.#open = undefined;
    if (batch.unfinished === 0) this.#delete(batch);
  }

  #delete(batch: Batch): void {
    if (batch.names.length === 0) return;
    const deleting = this.#deleteBatch(batch).finally(() => this.#deleting.delete(deleting));
    this.#deleting.add(deleting);
  }

  async #deleteBatch(batch: Batch): Promise<void> {
    const { client, labelKey, logger } = this.#options;
    if (!this.#collectionRefused) {
      try {
        await client.delete(`${CSR_COLLECTION}?labelSelector=${encodeURIComponent(`${labelKey}=${batch.id}`)}`);
        return;
      } catch (error: unknown) {
        if (isForbidden(error) || isMethodNotSupported(error) || isNotFound(error)) {
          this.#collectionRefused = true;
          logger.info({ err: error }, 'The virtual cluster refuses deleting certificate requests as a collection: deleting them one by one');
        }
        // Any other failure: the requests of this batch one by one.
      }
    }
    // Tidy-up only: a request left behind is collected by the cluster within an hour.
    await Promise.all(batch.names.map((name) => client.delete(`${CSR_COLLECTION}/${encodeURIComponent(name)}`).catch(() => undefined)));
  }
}
