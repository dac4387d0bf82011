import { ANNOTATION_CONTROLLED_BY, LABEL_CONTROLLED_BY } from './keys.js';
import type { ObjectMetadata } from './object-metadata.js';

/**
 * Why an object belongs to someone other than the syncer named `syncerName` (e.g. `endpoints`),
 * or `undefined` when it is the syncer's to sync. vcluster's rule for objects owned by a plugin,
 * applied to the virtual object and to the host copy alike: a `vcluster.loft.sh/controlled-by`
 * label with any non-empty value, or a `vcluster.loft.sh/controlled-by` annotation naming another
 * syncer. An empty value marks nothing (as in vcluster, which reads a missing and an empty value
 * the same way). Pure.
 */
export function controlledElsewhere(metadata: ObjectMetadata | undefined, syncerName: string): string | undefined {
  const label = metadata?.labels?.[LABEL_CONTROLLED_BY];
  if (label !== undefined && label !== '') return `it is labelled ${LABEL_CONTROLLED_BY}=${label} (a plugin's object)`;
  const annotation = metadata?.annotations?.[ANNOTATION_CONTROLLED_BY];
  if (annotation !== undefined && annotation !== '' && annotation !== syncerName) {
    return `it is annotated ${ANNOTATION_CONTROLLED_BY}=${annotation} (another syncer's object)`;
  }
  return undefined;
}
