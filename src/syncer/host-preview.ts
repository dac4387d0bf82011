import type { VclusterConfig } from '../config/schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { PatchError, PatchSandbox } from '../patches/index.js';
import { desiredHostObject } from './desired-host.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { SyncableResource } from './syncable-resource.js';

/** What previewing one input object came to. */
export type PreviewOutcome =
  /** The host object (and the references it imports) the syncer would write. */
  | ({ kind: 'host' } & PatchedObject)
  /** An object of a kind no enabled resource syncs: not an error. */
  | { kind: 'skipped'; message: string }
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

/** Previews objects one by one; see {@link createHostPreview}. */
export interface HostPreview {
  preview(object: unknown): Promise<PreviewOutcome>;
}

/**
 * What `vcsync preview` computes, for every enabled resource of the registry: the host object the
 * syncer would write for a virtual object, picked by its kind, with translation and patches as the
 * controller runs them (no host copy yet, secondary caches as the resource's `previewResource`
 * assumes; namespace `default` when none is given). Fails with the patch errors of the config.
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
  return {
    ok: true,
    preview: {
      async preview(value: unknown): Promise<PreviewOutcome> {
        const object = value as Partial<KubeObject> | null;
        if (typeof object !== 'object' || object === null || Array.isArray(object)) {
          return { kind: 'failed', message: 'expected a Kubernetes object (a map with kind and metadata)' };
        }
        const match = typeof object.kind === 'string' ? byKind.get(object.kind) : undefined;
        if (match === undefined) return { kind: 'skipped', message: `skipped ${String(object.kind)} (vcsync syncs ${kinds})` };
        if (typeof object.metadata?.name !== 'string') {
          return { kind: 'failed', message: `${/^[AEIOU]/.test(match.resource.kind) ? 'an' : 'a'} ${match.resource.kind} needs metadata.name` };
        }
        const virtual = { ...object, metadata: { namespace: 'default', ...object.metadata } } as KubeObject;
        try {
          return { kind: 'host', ...(await desiredHostObject(match.resource.previewResource(), match.state, virtual, undefined)) };
        } catch (error) {
          return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
        }
      },
    },
  };
}
