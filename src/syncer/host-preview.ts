import type { VclusterConfig } from '../config/schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { objectKey } from '../kube/object-key.js';
import type { PatchError, PatchSandbox } from '../patches/index.js';
import { desiredHostObject } from './desired-host.js';
import type { PatchedObject } from './object-patcher.js';
import type { SkipCause } from './reconcile-outcome.js';
import { syncPlan } from './sync-plan.js';
import type { SyncState } from './sync-state.js';
import type { SyncableResource } from './syncable-resource.js';
import type { ToHostResource } from './to-host-resource.js';

/** What previewing one input object came to. */
export type PreviewOutcome =
  /** The host object (and the references it imports) the syncer would write. */
  | ({ kind: 'host' } & PatchedObject)
  /**
   * Nothing is written for this object, and that is not an error: the syncer skips it (`cause` is
   * its skip cause, as in `vcsync_sync_skips_total`), or no enabled resource syncs its kind (no
   * `cause`). `message` says which object and why.
   */
  | { kind: 'skipped'; cause?: SkipCause; message: string }
  /** The object cannot be previewed (not an object, no name, a patch failed, …). */
  | { kind: 'failed'; message: string };

/** Options of {@link createHostPreview}. */
export interface HostPreviewOptions {
  vclusterName: string;
  hostNamespace: string;
  /** The merged configuration (defaults applied). */
  config: VclusterConfig;
  sandbox: PatchSandbox;
}

/** Previews objects; see {@link createHostPreview}. */
export interface HostPreview {
  /**
   * Previews every object of one input (one outcome per object, in input order). The objects are
   * also what the resources' rules read (e.g. the Services among them; see
   * {@link SyncableResource.previewResource}). Their patches are evaluated concurrently, sharing
   * sandbox crossings as the controller's workers' do; no object sees another's evaluation.
   */
  previewAll(objects: readonly unknown[]): Promise<PreviewOutcome[]>;
  /** Previews one object on its own: {@link HostPreview.previewAll} of just that object. */
  preview(object: unknown): Promise<PreviewOutcome>;
}

/**
 * What `vcsync preview` computes, for every enabled resource of the registry: what the syncer does
 * with a virtual object, picked by its kind. The same decision as the controller's (`syncPlan`:
 * disabled, never synced, not placed, controlled by a plugin, the resource's rules, with the same
 * skip causes), then translation and patches as the controller runs them, for a first sync (no
 * host copy yet; secondary caches as the resource's `previewResource` reads them from the input;
 * namespace `default` when none is given). Fails with the patch errors of the config.
 */
export function createHostPreview(
  resources: readonly SyncableResource[],
  options: HostPreviewOptions,
): { ok: true; preview: HostPreview } | { ok: false; errors: readonly PatchError[] } {
  const byKind = new Map<string, { resource: SyncableResource; state: SyncState }>();
  for (const resource of resources.filter((r) => r.enabled(options.config))) {
    const built = resource.buildState(options);
    if (!built.ok) return { ok: false, errors: built.errors };
    byKind.set(resource.kind, { resource, state: built.state });
  }
  const kinds = [...byKind.keys()].join(', ');

  const previewAll = async (values: readonly unknown[]): Promise<PreviewOutcome[]> => {
    const inputs = values.map(asVirtualObject);
    const resourcesByKind = new Map([...byKind].map(([kind, match]) => [kind, { ...match, resource: match.resource.previewResource(inputs.filter(isObject)) }]));
    const outcomes: PreviewOutcome[] = [];
    // The objects to patch, by their index in `outcomes`, per kind: patched below, many at once.
    const toPatch = new Map<string, { index: number; resource: ToHostResource<KubeObject>; state: SyncState; virtual: KubeObject }[]>();
    for (const object of inputs) {
      if (object === undefined) {
        outcomes.push({ kind: 'failed', message: 'expected a Kubernetes object (a map with kind and metadata)' });
        continue;
      }
      const match = typeof object.kind === 'string' ? resourcesByKind.get(object.kind) : undefined;
      if (match === undefined) {
        outcomes.push({ kind: 'skipped', message: `skipped ${String(object.kind)} (vcsync syncs ${kinds})` });
        continue;
      }
      if (typeof object.metadata?.name !== 'string') {
        outcomes.push({ kind: 'failed', message: `${/^[AEIOU]/.test(match.resource.kind) ? 'an' : 'a'} ${match.resource.kind} needs metadata.name` });
        continue;
      }
      const key = objectKey(object);
      const plan = syncPlan(match.resource, match.state, key, object);
      if (plan.kind !== 'sync') {
        outcomes.push({ kind: 'skipped', cause: plan.cause, message: `skipped ${match.resource.kind} ${key} (${plan.cause}): ${plan.reason}` });
        continue;
      }
      const ofKind = toPatch.get(match.resource.kind) ?? [];
      if (ofKind.length === 0) toPatch.set(match.resource.kind, ofKind);
      ofKind.push({ index: outcomes.length, resource: match.resource, state: match.state, virtual: plan.virtual });
      outcomes.push({ kind: 'failed', message: 'not previewed' });
    }
    // One kind after the other, in waves: see PREVIEW_WAVE.
    const ordered = [...toPatch.values()].flat();
    for (let start = 0; start < ordered.length; start += PREVIEW_WAVE) {
      await Promise.all(
        ordered.slice(start, start + PREVIEW_WAVE).map(async ({ index, resource, state, virtual }) => {
          try {
            outcomes[index] = { kind: 'host', ...(await desiredHostObject(resource, state, virtual, undefined)) };
          } catch (error) {
            outcomes[index] = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
          }
        }),
      );
    }
    return outcomes;
  };

  return {
    ok: true,
    preview: {
      previewAll,
      async preview(value: unknown): Promise<PreviewOutcome> {
        const [outcome] = await previewAll([value]);
        return outcome ?? { kind: 'failed', message: 'nothing to preview' };
      },
    },
  };
}

/**
 * Host objects computed at once, in waves. As the controller's concurrent workers' do, the
 * patches of a wave share sandbox crossings instead of taking one crossing (a round trip to a
 * worker process) each. A crossing carries the objects of one resource (one program) that wait at
 * the same time, up to the sandbox's batch of 64: so the objects go kind after kind, and in waves
 * rather than a sliding window, where the callers answered by one crossing would call again while
 * the next one runs and the batches split (measured: 16 and 48 instead of 64, 283 crossings
 * instead of 188 for 12,000 objects; 925 interleaving kinds 32 at a time).
 */
const PREVIEW_WAVE = 64;

function isObject(value: KubeObject | undefined): value is KubeObject {
  return value !== undefined;
}

/** The input as a virtual object (namespace `default` when it has none), or undefined when it is not an object. */
function asVirtualObject(value: unknown): KubeObject | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const object = value as Partial<KubeObject>;
  const metadata = typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {};
  return { ...object, metadata: { namespace: 'default', ...metadata } } as KubeObject;
}
