import { endpointsSyncable } from './endpoints/endpoints-syncable.js';
import { endpointSlicesSyncable } from './endpointslices/endpointslices-syncable.js';
import type { SyncableResource } from './syncable-resource.js';

/**
 * The resources vcsync syncs, as vcluster's register.go: `start`, `dev`, `preview` and `validate`
 * iterate this list and name no resource themselves. A new resource is one folder under syncer/
 * exporting a {@link SyncableResource}, and one line here.
 */
export const SYNCABLE_RESOURCES: readonly SyncableResource[] = Object.freeze([endpointsSyncable, endpointSlicesSyncable]);
