import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { desiredHostObject } from '../../../src/syncer/desired-host.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { endpointsOwnedHostLabels, LABEL_SKIP_MIRROR } from '../../../src/syncer/endpoints/translate.js';
import { buildEndpointsSyncState } from '../../../src/syncer/endpoints/config-section.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';
import type { SyncState } from '../../../src/syncer/sync-state.js';
import { deepFrozen } from '../translate/deep-frozen.js';

// Host Endpoints copies carry skip-mirror exactly while EndpointSlices are synced (ADR 0042): the
// label follows the configuration only, never the virtual object, a patch or the host.

const sandbox = new PatchSandbox({ timeoutMs: 1000 });
afterAll(() => sandbox.dispose());
const resource = endpointsResource({ get: () => ({ spec: {} }) });

/** The Endpoints state of a vcluster.yaml whose `sync.toHost` holds `toHost` (YAML lines, 4 spaces in). */
function stateOf(toHost: string[]): SyncState {
  const parsed = parseConfig(`sync:\n  toHost:\n    endpoints:\n      enabled: true\n${toHost.join('\n')}\n`, 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join('; '));
  const built = buildEndpointsSyncState({ vclusterName: 'vc', hostNamespace: 'host-ns', config: parsed.config, sandbox });
  if (!built.ok) throw new Error(built.errors.map((e) => e.message).join('; '));
  return built.state;
}

const slicesOn = stateOf(['    endpointSlices:', '      enabled: true']);
const slicesOff = stateOf(['    endpointSlices:', '      enabled: false']);
const slicesDefault = stateOf([]);

const virtual = (labels: Record<string, string> = {}): Endpoints =>
  deepFrozen({ metadata: { name: 'web', namespace: 'default', uid: 'v-uid', labels: { app: 'web', ...labels } }, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] });

async function hostLabels(state: SyncState, object: Endpoints, existing?: KubeObject): Promise<Record<string, string>> {
  const { object: host } = await desiredHostObject(resource, state, object, existing);
  return { ...host.metadata?.labels };
}

describe('endpointsOwnedHostLabels', () => {
  it('owns skip-mirror: "true" while slices are synced, removes it otherwise', () => {
    expect(endpointsOwnedHostLabels(true)).toEqual({ [LABEL_SKIP_MIRROR]: 'true' });
    expect(endpointsOwnedHostLabels(false)).toEqual({ [LABEL_SKIP_MIRROR]: null });
  });
});

describe('host Endpoints labels under sync.toHost.endpointSlices', () => {
  it('carry skip-mirror while slices are synced, also when the section is left to its default (on, as vcluster)', async () => {
    expect(await hostLabels(slicesOn, virtual())).toMatchObject({ app: 'web', [LABEL_SKIP_MIRROR]: 'true' });
    expect(await hostLabels(slicesDefault, virtual())).toMatchObject({ [LABEL_SKIP_MIRROR]: 'true' });
  });

  it('carry no skip-mirror while slices are not synced, so the host mirroring controller makes the slice', async () => {
    expect(await hostLabels(slicesOff, virtual())).not.toHaveProperty(LABEL_SKIP_MIRROR);
  });

  it('follow the configuration, not the virtual object: a virtual skip-mirror value is neither copied nor kept', async () => {
    expect(await hostLabels(slicesOff, virtual({ [LABEL_SKIP_MIRROR]: 'true' }))).not.toHaveProperty(LABEL_SKIP_MIRROR);
    expect(await hostLabels(slicesOn, virtual({ [LABEL_SKIP_MIRROR]: 'false' }))).toMatchObject({ [LABEL_SKIP_MIRROR]: 'true' });
  });

  it('lose skip-mirror on the existing host copy when a reload switches slices off, and get it back when it switches them on', async () => {
    const { object: written } = await desiredHostObject(resource, slicesOn, virtual(), undefined);
    const existing = deepFrozen(written);
    expect(existing.metadata?.labels).toMatchObject({ [LABEL_SKIP_MIRROR]: 'true' });
    // Without ownership the key would be kept as a host-only label (vcsync's managed-labels never listed it).
    expect(await hostLabels(slicesOff, virtual(), existing)).not.toHaveProperty(LABEL_SKIP_MIRROR);
    const { object: switchedOff } = await desiredHostObject(resource, slicesOff, virtual(), existing);
    expect(await hostLabels(slicesOn, virtual(), deepFrozen(switchedOff))).toMatchObject({ [LABEL_SKIP_MIRROR]: 'true' });
  });

  it('hold against a host-side value and a label patch', async () => {
    const { object: written } = await desiredHostObject(resource, slicesOn, virtual(), undefined);
    const edited = deepFrozen({ ...written, metadata: { ...written.metadata, labels: { ...written.metadata?.labels, [LABEL_SKIP_MIRROR]: 'false', team: 'ops' } } });
    // The host-only label stays, the owned one is repaired.
    expect(await hostLabels(slicesOn, virtual(), edited)).toMatchObject({ team: 'ops', [LABEL_SKIP_MIRROR]: 'true' });
    const patched = stateOf([
      '      patches:',
      `        - path: metadata.labels["${LABEL_SKIP_MIRROR}"]`,
      '          expression: \'"true"\'',
      '    endpointSlices:',
      '      enabled: false',
    ]);
    expect(await hostLabels(patched, virtual({ [LABEL_SKIP_MIRROR]: 'x' }))).not.toHaveProperty(LABEL_SKIP_MIRROR);
  });
});
