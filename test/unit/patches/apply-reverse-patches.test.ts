import { afterAll, describe, expect, test } from 'vitest';
import {
  applyPatches,
  compilePatches,
  PatchEvaluationErrorCode,
  PatchSandbox,
  reversePatches,
  type PatchableObject,
  type PatchEnvironment,
  type PatchPlan,
} from '../../../src/patches/index.js';
import { deepFreeze, fakeLabels, fakeReferences } from './fixtures.js';

const sandbox = new PatchSandbox({ timeoutMs: 1000 });
const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
afterAll(() => sandbox.dispose());

function plan(entries: unknown[]): PatchPlan {
  const result = compilePatches(entries, { configPath: 'sync.toHost.endpoints.patches', vcluster: { name: 'vc', namespace: 'host-ns', config: {} } });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.plan;
}

const virtualEndpoints = (): PatchableObject => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'web', namespace: 'default', annotations: { team: 'a', 'example.com/url': 'web.default.svc' } },
  subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }], ports: [{ port: 80 }] }],
});

const translated = (): PatchableObject => {
  const object = virtualEndpoints();
  (object['metadata'] as Record<string, unknown>)['name'] = 'web-x-default-x-vc';
  (object['metadata'] as Record<string, unknown>)['namespace'] = 'host-ns';
  return object;
};

async function forward(p: PatchPlan, object: PatchableObject, virtualObject: PatchableObject | null = virtualEndpoints()) {
  const result = await applyPatches(p, { object: deepFreeze(object), virtualObject: deepFreeze(virtualObject), hostObject: null, record: true }, env);
  if (!result.ok) throw result.error;
  return result;
}

describe('applyPatches (virtual → host)', () => {
  test('replaces and removes values and reports each concrete path; inputs stay untouched', async () => {
    const object = translated();
    const snapshot = structuredClone(object);
    const result = await forward(
      plan([
        { path: 'subsets[*].addresses[*].ip', expression: 'value.replace("10.", "192.")' },
        { path: 'metadata.annotations.team', expression: 'null' },
        { path: 'metadata.annotations["example.com/url"]', expression: '"platform"' },
        { path: 'subsets[*].ports[*].port', expression: 'value' },
      ]),
      object,
    );
    expect(object).toEqual(snapshot);
    expect(result.object).not.toBe(object);
    expect(result.object['subsets']).toEqual([
      { addresses: [{ ip: '192.0.0.1' }, { ip: '192.0.0.2' }, { ip: '192.0.0.3' }], ports: [{ port: 80 }] },
    ]);
    expect(result.object['metadata']).toEqual({
      name: 'web-x-default-x-vc',
      namespace: 'host-ns',
      annotations: { 'example.com/url': 'platform' },
    });
    expect(result.applied).toEqual([
      { patchIndex: 0, path: 'subsets[0].addresses[0].ip', outcome: 'set' },
      { patchIndex: 0, path: 'subsets[0].addresses[1].ip', outcome: 'set' },
      { patchIndex: 0, path: 'subsets[0].addresses[2].ip', outcome: 'set' },
      { patchIndex: 1, path: 'metadata.annotations.team', outcome: 'removed' },
      { patchIndex: 2, path: 'metadata.annotations["example.com/url"]', outcome: 'set' },
      { patchIndex: 3, path: 'subsets[0].ports[0].port', outcome: 'unchanged' },
    ]);
  });

  test('null on array elements removes them; indices in context.path refer to the array before the patch', async () => {
    const result = await forward(
      plan([{ path: 'subsets[0].addresses[*]', expression: 'context.path.endsWith("[1]") ? value : undefined' }]),
      translated(),
    );
    expect(result.object['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 80 }] }]);
    expect(result.applied.map((a) => a.outcome)).toEqual(['removed', 'unchanged', 'removed']);
  });

  test('a missing parent or a missing last key skips the patch without error', async () => {
    const result = await forward(
      plan([
        { path: 'spec.selector.app', expression: '"x"' },
        { path: 'metadata.labels.app', expression: '"x"' },
        { path: 'metadata.annotations.none', expression: '"x"' },
        { path: 'subsets[3].addresses', expression: '[]' },
      ]),
      translated(),
    );
    expect(result.object).toEqual(translated());
    expect(result.applied).toEqual([]);
  });

  test('a patch applies only where its whole path exists: addresses without a hostname get none', async () => {
    const object = {
      ...translated(),
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', hostname: 'db' }, { ip: '10.0.0.3' }], ports: [{ port: 80 }] }],
    };
    const result = await forward(
      plan([
        { path: 'subsets[*].addresses[*].hostname', expression: 'context.vcluster.name + "-" + value' },
        { path: 'metadata.annotations["example.com/new"]', expression: '"added"' },
        { path: 'metadata.labels[*]', expression: '"added"' },
      ]),
      object,
    );
    expect(result.object['subsets']).toEqual([
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', hostname: 'vc-db' }, { ip: '10.0.0.3' }], ports: [{ port: 80 }] },
    ]);
    expect((result.object['metadata'] as Record<string, unknown>)['annotations']).toEqual({ team: 'a', 'example.com/url': 'web.default.svc' });
    expect(result.applied).toEqual([{ patchIndex: 0, path: 'subsets[0].addresses[1].hostname', outcome: 'set' }]);
  });

  test('later patches see earlier results; context objects are the inputs', async () => {
    const result = await forward(
      plan([
        { path: 'metadata.annotations.team', expression: 'value + "1"' },
        { path: 'metadata.annotations["example.com/url"]', expression: '(context.hostObject === null ? "none:" : "host:") + context.virtualObject.metadata.annotations.team' },
        { path: 'metadata.annotations[*]', expression: 'value + "!"' },
      ]),
      translated(),
    );
    expect((result.object['metadata'] as Record<string, unknown>)['annotations']).toEqual({
      team: 'a1!',
      'example.com/url': 'none:a!',
    });
  });

  test('metadata[*] never touches name or namespace; replacing metadata wholesale cannot change them', async () => {
    const skipped = await forward(plan([{ path: 'metadata[*]', expression: 'typeof value === "string" ? "changed" : value' }]), translated());
    expect(skipped.object['metadata']).toMatchObject({ name: 'web-x-default-x-vc', namespace: 'host-ns' });
    expect(skipped.applied.map((a) => a.path)).toEqual(['metadata.annotations']);

    const result = await applyPatches(plan([{ path: 'metadata', expression: '({ ...value, name: "evil" })' }]), {
      object: translated(), virtualObject: null, hostObject: null,
    }, env);
    expect(!result.ok && result.error.code).toBe(PatchEvaluationErrorCode.PROTECTED_FIELD);
    expect(!result.ok && result.error.patchIndex).toBe(0);
  });

  test('a plan with no patches returns an equal, new object without entering the sandbox', async () => {
    const unused = new PatchSandbox();
    unused.dispose();
    const object = deepFreeze(translated());
    const result = await applyPatches(plan([]), { object, virtualObject: null, hostObject: null }, { ...env, sandbox: unused });
    expect(result.ok && result.object).toEqual(object);
    expect(result.ok && result.object).not.toBe(object);
  });
});

describe('reversePatches (host → virtual)', () => {
  const suffixPlan = plan([
    { path: 'metadata.annotations[*]', expression: 'value + "-host"', reverseExpression: 'value.endsWith("-host") ? value.slice(0, -5) : value' },
  ]);

  test('round trip: forward(newVirtual) reproduces the host value and a second reverse is a no-op', async () => {
    const virtual = virtualEndpoints();
    const host = (await forward(suffixPlan, translated(), virtual)).object;
    const lastSynced = structuredClone(host);
    (host['metadata'] as { annotations: Record<string, string> }).annotations['team'] = 'b-host';
    (host['metadata'] as { annotations: Record<string, string> }).annotations['added'] = 'new-host';

    const first = await reversePatches(suffixPlan, { virtualObject: deepFreeze(virtual), hostObject: deepFreeze(host), lastSyncedHostObject: lastSynced }, env);
    if (!first.ok) throw first.error;
    expect(first.changed).toBe(true);
    expect((first.object['metadata'] as Record<string, unknown>)['annotations']).toEqual({
      team: 'b', 'example.com/url': 'web.default.svc', added: 'new',
    });
    expect(first.applied.map((a) => a.path)).toEqual(['metadata.annotations.team', 'metadata.annotations.added']);

    const again = await forward(suffixPlan, { ...first.object, metadata: { ...(first.object['metadata'] as object), name: 'web-x-default-x-vc', namespace: 'host-ns' } }, first.object);
    expect((again.object['metadata'] as Record<string, unknown>)['annotations']).toEqual((host['metadata'] as Record<string, unknown>)['annotations']);

    const second = await reversePatches(suffixPlan, { virtualObject: first.object, hostObject: host, lastSyncedHostObject: lastSynced }, env);
    expect(second.ok && second.changed).toBe(false);
    expect(second.ok && second.object).toEqual(first.object);
  });

  test('fields unchanged since the last sync are not written back, so virtual edits win', async () => {
    const virtual = virtualEndpoints();
    (virtual['metadata'] as { annotations: Record<string, string> }).annotations['team'] = 'edited-in-virtual';
    const host = translated();
    (host['metadata'] as { annotations: Record<string, string> }).annotations['team'] = 'a-host';
    const result = await reversePatches(suffixPlan, { virtualObject: virtual, hostObject: host, lastSyncedHostObject: structuredClone(host) }, env);
    expect(result.ok && result.changed).toBe(false);
    // Without a last synced object every difference counts as a host-side change.
    const noHistory = await reversePatches(suffixPlan, { virtualObject: virtual, hostObject: host }, env);
    expect(noHistory.ok && (noHistory.object['metadata'] as { annotations: Record<string, string> }).annotations['team']).toBe('a');
  });

  test('a reverse result the forward expression does not map back is skipped as not-invertible', async () => {
    const lossy = plan([{ path: 'metadata.annotations.team', expression: 'value.toUpperCase()', reverseExpression: 'value' }]);
    const host = translated();
    (host['metadata'] as { annotations: Record<string, string> }).annotations['team'] = 'MiXeD';
    const result = await reversePatches(lossy, { virtualObject: virtualEndpoints(), hostObject: host, lastSyncedHostObject: null }, env);
    if (!result.ok) throw result.error;
    expect(result.changed).toBe(false);
    expect(result.skipped).toEqual([{ patchIndex: 0, path: 'metadata.annotations.team', reason: 'not-invertible' }]);
  });

  test('patches without reverseExpression are not reversed; reverse errors name reverseExpression', async () => {
    const host = translated();
    (host['metadata'] as { annotations: Record<string, string> }).annotations['team'] = 'z';
    const oneWay = await reversePatches(plan([{ path: 'metadata.annotations.team', expression: 'value' }]), { virtualObject: virtualEndpoints(), hostObject: host }, env);
    expect(oneWay.ok && oneWay.changed).toBe(false);
    const failing = await reversePatches(
      plan([{ path: 'metadata.annotations.team', expression: 'value', reverseExpression: 'value.nope.x' }]),
      { virtualObject: virtualEndpoints(), hostObject: host },
      env,
    );
    expect(!failing.ok && failing.error.configPath).toBe('sync.toHost.endpoints.patches[0].reverseExpression');
    expect(!failing.ok && failing.error.code).toBe(PatchEvaluationErrorCode.THREW);
  });
});

describe('reverse-only patches (a one-way host → virtual transform, valid in vcluster)', () => {
  const hostOnly = plan([{ path: 'metadata.annotations.team', reverseExpression: '"from-host-" + value' }]);
  const withTeam = (object: PatchableObject, team: string): PatchableObject => {
    const copy = structuredClone(object);
    (copy['metadata'] as { annotations: Record<string, string> }).annotations['team'] = team;
    return copy;
  };
  const teamOf = (object: PatchableObject): string | undefined => (object['metadata'] as { annotations: Record<string, string> }).annotations['team'];

  test('patch nothing on the way to the host', async () => {
    const result = await forward(hostOnly, translated());
    expect(result.object).toEqual(translated());
    expect(result.applied).toEqual([]);
  });

  // virtual value, host value, last synced host value → virtual value after, changed
  test.each<[string, string, string, string | null, string, boolean]>([
    ['a host-side change is transformed into the virtual object', 'a', 'b', 'a', 'from-host-b', true],
    ['no last synced object: the host value counts as a change', 'a', 'b', null, 'from-host-b', true],
    ['unchanged on the host since the last sync: virtual edits win', 'edited', 'a', 'a', 'edited', false],
    ['already transformed: a second pass writes nothing (no from-host-from-host-)', 'from-host-b', 'b', null, 'from-host-b', false],
  ])('%s', async (_name, virtualTeam, hostTeam, lastTeam, after, changed) => {
    const virtual = withTeam(virtualEndpoints(), virtualTeam);
    const host = withTeam(translated(), hostTeam);
    const last = lastTeam === null ? null : withTeam(translated(), lastTeam);
    const result = await reversePatches(hostOnly, { virtualObject: deepFreeze(virtual), hostObject: deepFreeze(host), lastSyncedHostObject: last }, env);
    if (!result.ok) throw result.error;
    expect(teamOf(result.object)).toBe(after);
    expect(result.changed).toBe(changed);
  });

  test('a null result writes nothing back and says so', async () => {
    const dropping = plan([{ path: 'metadata.annotations.team', reverseExpression: 'null' }]);
    const result = await reversePatches(dropping, { virtualObject: virtualEndpoints(), hostObject: withTeam(translated(), 'b') }, env);
    if (!result.ok) throw result.error;
    expect(result.changed).toBe(false);
    expect(result.skipped).toEqual([{ patchIndex: 0, path: 'metadata.annotations.team', reason: 'no-value' }]);
  });
});

describe('reference patches', () => {
  test('a name (string) is rewritten to the host name and listed for import', async () => {
    const object = translated();
    (object['metadata'] as { annotations: Record<string, string> }).annotations['secret'] = 'db-creds';
    const result = await forward(
      plan([{ path: 'metadata.annotations.secret', reference: { apiVersion: 'v1', kind: 'Secret' } }]),
      object,
    );
    expect((result.object['metadata'] as { annotations: Record<string, string> }).annotations['secret']).toBe('vdefault-db-creds');
    expect(result.imports).toEqual([
      { direction: 'toHost', apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'db-creds', hostName: 'vdefault-db-creds', hostNamespace: 'host-ns' },
    ]);
  });

  test('an object reference uses namePath, namespacePath and kindPath; duplicates are imported once', async () => {
    const object = {
      ...translated(),
      spec: {
        refs: [
          { ref: { n: 'a', ns: 'other', k: 'ConfigMap' } },
          { ref: { n: 'a', ns: 'other', k: 'ConfigMap' } },
          { ref: { n: 'b' } },
          { ref: { ns: 'x' } },
        ],
      },
    };
    const result = await forward(
      plan([{ path: 'spec.refs[*].ref', reference: { kind: 'Secret', kindPath: 'k', namePath: 'n', namespacePath: 'ns' } }]),
      object,
    );
    expect(result.object['spec']).toEqual({
      refs: [
        { ref: { n: 'vother-a', ns: 'host-ns', k: 'ConfigMap' } },
        { ref: { n: 'vother-a', ns: 'host-ns', k: 'ConfigMap' } },
        { ref: { n: 'vdefault-b' } },
        { ref: { ns: 'x' } },
      ],
    });
    expect(result.imports).toEqual([
      { direction: 'toHost', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'other', name: 'a', hostName: 'vother-a', hostNamespace: 'host-ns' },
      { direction: 'toHost', apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'b', hostName: 'vdefault-b', hostNamespace: 'host-ns' },
    ]);
  });

  test('a value that cannot be a reference fails the object with PATCH_EVAL_REFERENCE_INVALID', async () => {
    const object = { ...translated(), spec: { ref: 42 } };
    const result = await applyPatches(plan([{ path: 'spec.ref', reference: { kind: 'Secret' } }]), { object, virtualObject: null, hostObject: null }, env);
    expect(!result.ok && result.error.code).toBe(PatchEvaluationErrorCode.REFERENCE_INVALID);
    expect(!result.ok && result.error.configPath).toBe('sync.toHost.endpoints.patches[0].reference');
  });

  test('reverse: a host-side change is translated back, imported fromHost, and round-trips', async () => {
    const p = plan([{ path: 'spec.secretName', reference: { kind: 'Secret' } }]);
    const virtual = { ...virtualEndpoints(), spec: { secretName: 'old' } };
    const host = { ...translated(), spec: { secretName: 'vdefault-new' } };
    const result = await reversePatches(p, { virtualObject: virtual, hostObject: host, lastSyncedHostObject: { spec: { secretName: 'vdefault-old' } } }, env);
    if (!result.ok) throw result.error;
    expect(result.object['spec']).toEqual({ secretName: 'new' });
    expect(result.imports).toEqual([
      { direction: 'fromHost', apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'new', hostName: 'vdefault-new', hostNamespace: 'host-ns' },
    ]);
    const unknown = await reversePatches(p, { virtualObject: virtual, hostObject: { ...host, spec: { secretName: 'plain' } } }, env);
    expect(unknown.ok && unknown.skipped).toEqual([{ patchIndex: 0, path: 'spec.secretName', reason: 'unknown-reference' }]);
  });
});

describe('labels patches', () => {
  test('translates selector keys (matchLabels and matchExpressions) and plain label maps', async () => {
    const object = {
      ...translated(),
      spec: {
        selector: { matchLabels: { release: 'r1', app: 'web' }, matchExpressions: [{ key: 'release', operator: 'In', values: ['r1'] }] },
        podLabels: { release: 'r2' },
      },
    };
    const result = await forward(
      plan([
        { path: 'spec.selector', labels: {} },
        { path: 'spec.podLabels', labels: {} },
      ]),
      object,
    );
    expect(result.object['spec']).toEqual({
      selector: {
        matchLabels: { 'vcluster.loft.sh/label-vc-x-release': 'r1', app: 'web' },
        matchExpressions: [{ key: 'vcluster.loft.sh/label-vc-x-release', operator: 'In', values: ['r1'] }],
      },
      podLabels: { 'vcluster.loft.sh/label-vc-x-release': 'r2' },
    });
    expect(result.applied.map((a) => [a.path, a.outcome])).toEqual([['spec.selector', 'set'], ['spec.podLabels', 'set']]);
  });

  test('reverse translates host keys back and is a no-op once in sync', async () => {
    const p = plan([{ path: 'spec.selector', labels: {} }]);
    const virtual = { ...virtualEndpoints(), spec: { selector: { app: 'web' } } };
    const host = { ...translated(), spec: { selector: { 'vcluster.loft.sh/label-vc-x-release': 'r9', app: 'web' } } };
    const first = await reversePatches(p, { virtualObject: virtual, hostObject: host }, env);
    if (!first.ok) throw first.error;
    expect(first.object['spec']).toEqual({ selector: { release: 'r9', app: 'web' } });
    const second = await reversePatches(p, { virtualObject: first.object, hostObject: host }, env);
    expect(second.ok && second.changed).toBe(false);
  });

  test('a value that is not a selector fails with PATCH_EVAL_LABELS_INVALID', async () => {
    const result = await applyPatches(plan([{ path: 'spec.selector', labels: {} }]), {
      object: { ...translated(), spec: { selector: 'app=web' } }, virtualObject: null, hostObject: null,
    }, env);
    expect(!result.ok && result.error.code).toBe(PatchEvaluationErrorCode.LABELS_INVALID);
  });
});
