import { hostNodesOnlyRule } from '../../config/host-nodes-rule.js';
import { resourceSectionSchema, sectionConfig, sectionPatchesPath, type ConfigSection } from '../../config/config-section.js';
import { deepFreeze } from '../../apimachinery/index.js';
import { patchesValidator } from '../patch-validation.js';
import { endpointSlicesConfigSection } from '../endpointslices/config-section.js';
import { buildSectionSyncState, type BuildSyncStateOptions, type BuildSyncStateResult } from '../sync-state.js';
import { endpointsOwnedHostLabels } from './translate.js';

const KEY = 'endpoints';

/**
 * `sync.toHost.endpoints`: on by default, as in vcluster; patches compiled by the patch engine.
 * Endpoints carry Pod addresses the host can only reach on host nodes, so the section is an error
 * with private nodes unless it is switched off.
 */
export const endpointsConfigSection: ConfigSection = Object.freeze({
  key: KEY,
  schema: resourceSectionSchema(true, {
    section: 'Endpoints syncing (virtual → host), performed by vcsync.',
    enabled:
      'Sync Endpoints created in the virtual cluster to the host cluster. Default true. Only available with host nodes: must be false with privateNodes.enabled true.',
    patches: 'Patches applied to synced Endpoints. Default none.',
  }),
  defaults: deepFreeze({ enabled: true, patches: [] }),
  rules: [hostNodesOnlyRule(KEY, 'Endpoints', true)],
  validators: [patchesValidator(sectionPatchesPath({ key: KEY }))],
});

/**
 * The state the Endpoints controller runs with: its section's translator and compiled patches, and
 * the labels it owns on host copies while `sync.toHost.endpointSlices` is on or off
 * ({@link endpointsOwnedHostLabels}: the one place the Endpoints rules read another resource's section).
 */
export function buildEndpointsSyncState(options: BuildSyncStateOptions): BuildSyncStateResult {
  const built = buildSectionSyncState(options, endpointsConfigSection);
  if (!built.ok) return built;
  const slicesSynced = sectionConfig(options.config, endpointSlicesConfigSection).enabled;
  return { ok: true, state: { ...built.state, ownedHostLabels: endpointsOwnedHostLabels(slicesSynced) } };
}
