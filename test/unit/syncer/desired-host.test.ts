import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { desiredHostObject } from '../../../src/syncer/desired-host.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { buildEndpointsSyncState } from '../../../src/syncer/endpoints/config-section.js';
import type { SyncState } from '../../../src/syncer/sync-state.js';
import { deepFrozen } from '../translate/deep-frozen.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const sandbox = new PatchSandbox({ timeoutMs: 1000 });
afterAll(() => sandbox.dispose());
const resource = endpointsResource({ get: () => ({ spec: {} }) });

function stateWith(patches: string[]): SyncState {
  const list = patches.length === 0 ? ' []' : `\n${patches.join('\n')}`;
  const parsed = parseConfig(`sync:\n  toHost:\n    endpoints:\n      patches:${list}\n`, 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join('; '));
  const built = buildEndpointsSyncState({ vclusterName: 'vc', hostNamespace: 'host-ns', config: parsed.config, sandbox });
  if (!built.ok) throw new Error(built.errors.map((e) => e.message).join('; '));
  return built.state;
}

const virtual = (annotations: Record<string, string>): Endpoints =>
  deepFrozen({ metadata: { name: 'web', namespace: 'default', uid: 'v-uid', annotations }, subsets: [] });

/** The host copy the syncer writes for `annotations`, plus `hostAnnotations` set on the host afterwards. */
async function existingHost(state: SyncState, annotations: Record<string, string>, hostAnnotations: Record<string, string>): Promise<KubeObject> {
  const { object } = await desiredHostObject(resource, state, virtual(annotations), undefined);
  return deepFrozen({ ...object, metadata: { ...object.metadata, annotations: { ...object.metadata?.annotations, ...hostAnnotations } } });
}

const userAnnotations = (object: KubeObject): Record<string, string> =>
  Object.fromEntries(Object.entries(object.metadata?.annotations ?? {}).filter(([key]) => !key.startsWith('vcluster.loft.sh/')));

describe('desiredHostObject: forward patches see only the virtual object translated', () => {
  it.each<[string, string[], Record<string, string>, Record<string, string>, Record<string, string>]>([
    [
      'a host-only value on the patched key is kept as it is, not fed to the expression',
      ['        - path: metadata.annotations["suffix"]', '          expression: \'(value || "") + "-" + context.vcluster.name\''],
      { team: 'a' },
      { suffix: '-vc' },
      { team: 'a', suffix: '-vc' },
    ],
    [
      'a wildcard over a map reaches only the keys the virtual object has',
      ['        - path: metadata.annotations[*]', '          expression: \'value.startsWith("vcluster.loft.sh") || context.path.includes("vcluster.loft.sh/") ? value : value + "!"\''],
      { team: 'a' },
      { owner: 'ops' },
      { team: 'a!', owner: 'ops' },
    ],
    [
      'a key the virtual object has is patched from its virtual value, whatever the host holds',
      ['        - path: metadata.annotations["suffix"]', '          expression: \'value + "-" + context.vcluster.name\''],
      { suffix: 'x' },
      { suffix: 'x-vc-vc' },
      { suffix: 'x-vc' },
    ],
    [
      'a patch that removes a virtual key removes it even where the host has it',
      ['        - path: metadata.annotations["drop"]', '          expression: \'null\''],
      { drop: 'me', team: 'a' },
      { drop: 'host' },
      { team: 'a' },
    ],
  ])('%s', async (_name, patches, virtualAnnotations, hostAnnotations, expected) => {
    const state = stateWith(patches);
    const host = await existingHost(stateWith([]), virtualAnnotations, hostAnnotations);
    const { object } = await desiredHostObject(resource, state, virtual(virtualAnnotations), host);
    expect(userAnnotations(object)).toEqual(expected);
    // The next reconcile, against what was just written, writes the same again.
    const again = await desiredHostObject(resource, state, virtual(virtualAnnotations), deepFrozen(object));
    expect(again.object).toEqual(object);
  });

  it('expressions can still read the host object as context.hostObject', async () => {
    const state = stateWith(['        - path: metadata.annotations["team"]', '          expression: \'context.hostObject === null ? "none" : context.hostObject.metadata.annotations.owner\'']);
    const host = await existingHost(stateWith([]), { team: 'a' }, { owner: 'ops' });
    const { object } = await desiredHostObject(resource, state, virtual({ team: 'a' }), host);
    expect(userAnnotations(object)).toEqual({ team: 'ops', owner: 'ops' });
  });
});
