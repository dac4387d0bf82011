import { hostNodesOnlyRule } from '../../config/host-nodes-rule.js';
import { resourceSectionSchema, sectionPatchesPath, type ConfigSection } from '../../config/config-section.js';
import { deepFreeze } from '../../apimachinery/index.js';
import { patchesValidator } from '../patch-validation.js';

const KEY = 'endpointSlices';

/**
 * `sync.toHost.endpointSlices` (vcluster 0.30+): on by default, as in vcluster; patches compiled
 * by the patch engine. Slices carry the same Pod addresses as Endpoints, which the host can only
 * reach on host nodes, so the section has the Endpoints section's rule with private nodes.
 */
export const endpointSlicesConfigSection: ConfigSection = Object.freeze({
  key: KEY,
  schema: resourceSectionSchema(true, {
    section: 'EndpointSlices syncing (virtual → host), performed by vcsync.',
    enabled:
      'Sync EndpointSlices created in the virtual cluster to the host cluster. Default true. Only available with host nodes: must be false with privateNodes.enabled true.',
    patches: 'Patches applied to synced EndpointSlices. Default none.',
  }),
  defaults: deepFreeze({ enabled: true, patches: [] }),
  rules: [hostNodesOnlyRule(KEY, 'EndpointSlices', true)],
  validators: [patchesValidator(sectionPatchesPath({ key: KEY }))],
});
