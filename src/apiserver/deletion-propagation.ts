/**
 * DeleteOptions.propagationPolicy as the registry store applies it: Background deletes the object
 * at once (a garbage collector then deletes its dependents), Orphan and Foreground mark it for
 * deletion with a finalizer that the garbage collector removes once the dependents are orphaned
 * (their owner reference removed) or deleted.
 */

/** The values of DeleteOptions.propagationPolicy. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** The finalizer of an object whose dependents are orphaned before it goes (metav1.FinalizerOrphanDependents). */
export const ORPHAN_FINALIZER = 'orphan';

/** The finalizer of an object whose dependents are deleted before it goes (metav1.FinalizerDeleteDependents). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** Whether `value` is one of the {@link PropagationPolicy} values. */
export function isPropagationPolicy(value: unknown): value is PropagationPolicy {
  return value === 'Orphan' || value === 'Background' || value === 'Foreground';
}

/**
 * The finalizers an object has once a DELETE with `policy` (undefined: the kind's default, which
 * is Background for every kind served here) marks it: the garbage-collection finalizer of the
 * policy added, the other one removed, as `deletionFinalizersForGarbageCollection` does. A new array;
 * `finalizers` is not changed.
 */
export function finalizersForPropagation(finalizers: readonly string[], policy: PropagationPolicy | undefined): string[] {
  if (policy === undefined) return [...finalizers];
  const rest = finalizers.filter((finalizer) => finalizer !== ORPHAN_FINALIZER && finalizer !== FOREGROUND_FINALIZER);
  if (policy === 'Orphan') return [...rest, ORPHAN_FINALIZER];
  if (policy === 'Foreground') return [...rest, FOREGROUND_FINALIZER];
  return rest;
}
