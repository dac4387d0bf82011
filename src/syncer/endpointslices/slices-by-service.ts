import type { InformerHandler } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { objectKey } from '../../kube/object-key.js';
import type { SecondarySource } from '../to-host-resource.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { sliceServiceName } from './translate.js';

/**
 * The virtual slices of each Service, by the `kubernetes.io/service-name` label: an index kept by
 * the virtual slices informer's events, so waking the slices of a changed Service costs the number
 * of its slices, not a scan of every cached slice. Register {@link SlicesByService.handler} on the
 * informer before its handlers that read the index (an informer calls handlers in the order they
 * were added, after its cache is updated). Memory: one key per cached slice.
 */
export class SlicesByService {
  /** `namespace/service` → keys (`namespace/name`) of the slices naming that Service. */
  readonly #slices = new Map<string, Set<string>>();
  /** Slice key → the Service key it was indexed under (to move or drop it on change). */
  readonly #serviceOf = new Map<string, string>();

  /** The informer handler that keeps the index. */
  readonly handler: InformerHandler<EndpointSlice> = {
    onAdd: (slice) => this.#put(slice),
    onUpdate: (_old, slice) => this.#put(slice),
    onDelete: (slice) => this.#drop(objectKey(slice)),
  };

  /** Keys of the cached slices that name the Service `namespace/name`; empty when none. */
  slicesOf(serviceKey: string): string[] {
    return [...(this.#slices.get(serviceKey) ?? [])];
  }

  /** Services wake the slices that name them: a Service created, changed or deleted decides their sync. */
  readonly wake: SecondarySource = {
    keysFor: (service: KubeObject) => this.slicesOf(objectKey(service)),
  };

  #put(slice: EndpointSlice): void {
    const key = objectKey(slice);
    const name = sliceServiceName(slice);
    const service = name === undefined ? undefined : `${slice.metadata?.namespace ?? ''}/${name}`;
    if (this.#serviceOf.get(key) === service) return;
    this.#drop(key);
    if (service === undefined) return;
    this.#serviceOf.set(key, service);
    let keys = this.#slices.get(service);
    if (keys === undefined) {
      keys = new Set();
      this.#slices.set(service, keys);
    }
    keys.add(key);
  }

  #drop(key: string): void {
    const service = this.#serviceOf.get(key);
    if (service === undefined) return;
    this.#serviceOf.delete(key);
    const keys = this.#slices.get(service);
    keys?.delete(key);
    if (keys?.size === 0) this.#slices.delete(service);
  }
}
