import { sectionConfig, sectionPatchesPath, type ConfigSection, type ResourceSyncConfig } from '../config/config-section.js';
import type { VclusterConfig } from '../config/schema.js';
import { compilePatches, type PatchError, type PatchSandbox } from '../patches/index.js';
import { hostLabelKey, virtualLabelKey } from '../translate/label-keys.js';
import { createTranslator, type Translator } from '../translate/translator.js';
import { PlanPatcher } from './plan-patcher.js';
import type { ObjectPatcher } from './object-patcher.js';

/** The configuration-derived state a reconcile runs with; replaced as a whole on reload. */
export interface SyncState {
  /** `sync.toHost.<resource>.enabled`: when false nothing is written and host objects stay. */
  readonly enabled: boolean;
  readonly translator: Translator;
  readonly patcher: ObjectPatcher;
  /**
   * Host labels this resource's syncer owns under this configuration: a value is written on every
   * host copy, `null` removes the key from it, over whatever translation, patches and host-only
   * keys give; a host-side change of these keys never flows back to the virtual object. Default
   * none. A reload builds a new state, so a switched setting reaches every copy.
   */
  readonly ownedHostLabels?: Readonly<Record<string, string | null>>;
}

/** Options of {@link buildSyncState}. */
export interface BuildSyncStateOptions {
  vclusterName: string;
  hostNamespace: string;
  /** The merged configuration (defaults applied). */
  config: VclusterConfig;
  /** The process' patch sandbox (shared by every plan). */
  sandbox: PatchSandbox;
}

/** The state, or every patch compile error (the caller keeps its previous state). */
export type BuildSyncStateResult = { ok: true; state: SyncState } | { ok: false; errors: readonly PatchError[] };

/** The reference and label translation the patch engine needs, from the syncer's translator. */
function patchTranslators(translator: Translator) {
  return {
    references: {
      toHost(reference: { name: string; namespace: string }) {
        const placement = translator.referenceRef({ name: reference.name, namespace: reference.namespace });
        return placement.synced ? { name: placement.ref.name, namespace: placement.ref.namespace } : { name: reference.name, namespace: reference.namespace };
      },
    },
    labels: {
      toHostKey: (key: string) => hostLabelKey(key, translator.vclusterName),
      toVirtualKey: (key: string) => virtualLabelKey(key, translator.vclusterName),
    },
  };
}

/** The config section of one resource the state is built from: `sync.toHost.<resource>`. */
export interface ResourceSyncSection {
  /** When false nothing is written and host objects stay. */
  readonly enabled: boolean;
  /** The section's `patches`, as written (defaults applied). */
  readonly patches: ResourceSyncConfig['patches'];
}

/**
 * Builds what a resource's controller runs with from one configuration: the translator for its
 * namespace mode and the compiled plan of `section.patches` (errors name `patchesPath`, e.g.
 * `sync.toHost.endpoints.patches`). Compiling here (once per config load) is what keeps
 * per-object work to one sandbox call.
 */
export function buildSyncState(options: BuildSyncStateOptions, section: ResourceSyncSection, patchesPath: string): BuildSyncStateResult {
  const { config } = options;
  const translator = createTranslator({ vclusterName: options.vclusterName, hostNamespace: options.hostNamespace, config });
  const compiled = compilePatches(section.patches, {
    configPath: patchesPath,
    vcluster: { name: options.vclusterName, namespace: options.hostNamespace, config: config as unknown as Record<string, unknown> },
  });
  if (!compiled.ok) return { ok: false, errors: compiled.errors };
  const patcher = new PlanPatcher(compiled.plan, { sandbox: options.sandbox, ...patchTranslators(translator) });
  return { ok: true, state: { enabled: section.enabled, translator, patcher } };
}

/**
 * {@link buildSyncState} of a resource's config section (`sync.toHost.<key>`, defaults applied):
 * what a resource's controller runs with. A resource's `buildState` is this with its section.
 */
export function buildSectionSyncState(options: BuildSyncStateOptions, section: ConfigSection): BuildSyncStateResult {
  return buildSyncState(options, sectionConfig(options.config, section), sectionPatchesPath(section).join('.'));
}
