import { hostNodesOnlyRule } from '../../config/host-nodes-rule.js';
import { resourceSectionSchema, sectionPatchesPath, type ConfigSection } from '../../config/config-section.js';
import { deepFreeze } from '../../config/deep-freeze.js';
import { patchesValidator } from '../patch-validation.js';
import { buildSectionSyncState, type BuildSyncStateOptions, type BuildSyncStateResult } from '../sync-state.js';

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

/** The state the Endpoints controller runs with: its section's translator and compiled patches. */
export function buildEndpointsSyncState(options: BuildSyncStateOptions): BuildSyncStateResult {
  return buildSectionSyncState(options, endpointsConfigSection);
}
