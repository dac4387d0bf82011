import type { KubeObject } from '../kube/kube-object.js';
import {
  applyPatches,
  reversePatches,
  type PatchableObject,
  type PatchEnvironment,
  type PatchPlan,
} from '../patches/index.js';
import type { ObjectPatcher, PatchedObject } from './object-patcher.js';

/**
 * The syncer's {@link ObjectPatcher} over a compiled patch plan: forward patches on every host
 * object written, reverse patches when a host-side change flows back. Evaluation failures are
 * thrown as the engine's `PatchEvaluationError` so the controller retries with backoff and
 * reports them. A plan without patches costs nothing (no sandbox call).
 */
export class PlanPatcher implements ObjectPatcher {
  readonly #plan: PatchPlan;
  readonly #env: PatchEnvironment;
  readonly reverses: boolean;
  readonly readsHost: boolean;

  constructor(plan: PatchPlan, env: PatchEnvironment) {
    this.#plan = plan;
    this.#env = env;
    // Reference patches reverse only through a translator's `toVirtual`, which the syncer's
    // reference translation does not have; counting them would keep host objects in memory and
    // run the reverse pass for nothing.
    const referencesReverse = env.references.toVirtual !== undefined;
    this.reverses = plan.patches.some(
      (p) => p.mode === 'labels' || (p.mode === 'reference' && referencesReverse) || (p.mode === 'expression' && p.reverseExpression !== undefined),
    );
    // The host object's fields are read by reverse patches (their source) and by forward
    // expressions that read context.hostObject (found at compile time; an expression the analysis
    // cannot follow counts as reading it). Forward reference and label patches rewrite the
    // object being built and never read the host's.
    this.readsHost = this.reverses || plan.forwardReads.hostObject;
  }

  async toHost(input: { host: KubeObject; virtual: KubeObject; existingHost: KubeObject | undefined }): Promise<PatchedObject> {
    if (this.#plan.patches.length === 0) return { object: input.host, imports: [] };
    const result = await applyPatches(
      this.#plan,
      {
        object: input.host as PatchableObject,
        virtualObject: input.virtual as PatchableObject,
        hostObject: (input.existingHost as PatchableObject | undefined) ?? null,
      },
      this.#env,
    );
    if (!result.ok) throw result.error;
    return { object: result.object as KubeObject, imports: result.imports, changedBy: result.changedBy };
  }

  async toVirtual(input: { virtual: KubeObject; host: KubeObject; lastSyncedHost: KubeObject | undefined }): Promise<KubeObject> {
    if (!this.reverses) return input.virtual;
    const result = await reversePatches(
      this.#plan,
      {
        virtualObject: input.virtual as PatchableObject,
        hostObject: input.host as PatchableObject,
        lastSyncedHostObject: (input.lastSyncedHost as PatchableObject | undefined) ?? null,
      },
      this.#env,
    );
    if (!result.ok) throw result.error;
    return result.changed ? (result.object as KubeObject) : input.virtual;
  }
}
