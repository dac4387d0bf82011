import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type PropagationPolicy } from './deletion-propagation.js';
import { isJsonObject } from '../apimachinery/index.js';
import type { ObjectChange, ObjectController } from './object-controllers.js';
import type { ObjectWriter } from './object-writer.js';
import type { ResourceType } from './resource-type.js';
import type { StoredObject } from './storage.js';

/** One metadata.ownerReferences entry, as the collector reads it. */
interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion: boolean;
}

/** What the collector knows of one stored object (by uid). */
interface Node {
  type: ResourceType;
  namespace: string;
  name: string;
  deleting: boolean;
  finalizers: readonly string[];
  owners: readonly OwnerReference[];
}

/** What {@link GarbageCollector} works on. */
export interface GarbageCollectorInit {
  writer: ObjectWriter;
  /** Every served resource type: owners and dependents may be of any of them. */
  types: readonly ResourceType[];
}

const DEPENDENT = 'dependent:';
const OWNER = 'owner:';
const MERGE_PATCH = 'application/merge-patch+json';

function ownerReferencesOf(object: StoredObject): OwnerReference[] {
  const references = object.metadata['ownerReferences'];
  if (!Array.isArray(references)) return [];
  return references.filter(isJsonObject).map((reference) => ({
    apiVersion: String(reference['apiVersion'] ?? ''),
    kind: String(reference['kind'] ?? ''),
    name: String(reference['name'] ?? ''),
    uid: String(reference['uid'] ?? ''),
    blockOwnerDeletion: reference['blockOwnerDeletion'] === true,
  }));
}

function finalizersOf(object: StoredObject): string[] {
  const finalizers = object.metadata['finalizers'];
  return Array.isArray(finalizers) ? finalizers.filter((finalizer): finalizer is string => typeof finalizer === 'string') : [];
}

function waitsForDependents(node: Node): boolean {
  return node.deleting && node.finalizers.includes(FOREGROUND_FINALIZER);
}

/**
 * The garbage collector of kube-controller-manager, as an {@link ObjectController} (the
 * devcluster runs it over its store, the management server over its storage): it keeps an
 * owner → dependents graph from the stored objects' changes and
 * - deletes a dependent once none of its owners exists any more (Background propagation, and the
 *   dependents of an owner deleted before a restart, found in the start snapshot);
 * - for an owner marked with the `orphan` finalizer, removes its reference from every dependent,
 *   then the finalizer;
 * - for an owner marked with the `foregroundDeletion` finalizer, deletes its dependents and
 *   removes the finalizer once no dependent with `blockOwnerDeletion` is left;
 * - removes references to missing owners from a dependent that still has a live owner.
 * An owner reference whose kind the server does not serve is never considered missing.
 */
export class GarbageCollector implements ObjectController {
  readonly name = 'garbage-collector';
  readonly #writer: ObjectWriter;
  readonly #types: Map<string, ResourceType>;
  readonly #kinds: Map<string, ResourceType>;
  readonly #nodes = new Map<string, Node>();
  /** owner uid → dependent uids. */
  readonly #dependents = new Map<string, Set<string>>();

  /** Does no I/O. */
  constructor(init: GarbageCollectorInit) {
    this.#writer = init.writer;
    this.#types = new Map(init.types.map((type) => [type.id, type]));
    this.#kinds = new Map(init.types.map((type) => [`${type.apiVersion}/${type.kind}`, type]));
  }

  observe(event: ObjectChange): readonly string[] {
    const uid = event.object.metadata.uid;
    const type = this.#types.get(event.resource);
    if (uid === undefined || type === undefined) return [];
    const previous = this.#nodes.get(uid);
    if (previous !== undefined) this.#unlink(uid, previous);
    const keys: string[] = [];
    const touched = new Set(previous?.owners.map((owner) => owner.uid));
    if (event.type === 'DELETED') {
      this.#nodes.delete(uid);
      for (const dependent of this.#dependents.get(uid) ?? []) keys.push(DEPENDENT + dependent);
    } else {
      const node: Node = {
        type,
        namespace: event.object.metadata.namespace ?? '',
        name: event.object.metadata.name,
        deleting: event.object.metadata['deletionTimestamp'] !== undefined,
        finalizers: finalizersOf(event.object),
        owners: ownerReferencesOf(event.object),
      };
      this.#nodes.set(uid, node);
      this.#link(uid, node);
      for (const owner of node.owners) touched.add(owner.uid);
      if (node.owners.length > 0) keys.push(DEPENDENT + uid);
      if (node.deleting && (node.finalizers.includes(ORPHAN_FINALIZER) || node.finalizers.includes(FOREGROUND_FINALIZER))) keys.push(OWNER + uid);
    }
    // An owner waiting for its dependents looks again whenever one of them changes or goes.
    for (const owner of touched) {
      const node = this.#nodes.get(owner);
      if (node !== undefined && waitsForDependents(node)) keys.push(OWNER + owner);
    }
    return keys;
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith(OWNER)) return this.#processOwner(key.slice(OWNER.length));
    return this.#processDependent(key.slice(DEPENDENT.length));
  }

  #link(uid: string, node: Node): void {
    for (const owner of node.owners) {
      let dependents = this.#dependents.get(owner.uid);
      if (dependents === undefined) {
        dependents = new Set();
        this.#dependents.set(owner.uid, dependents);
      }
      dependents.add(uid);
    }
  }

  #unlink(uid: string, node: Node): void {
    for (const owner of node.owners) {
      const dependents = this.#dependents.get(owner.uid);
      dependents?.delete(uid);
      if (dependents?.size === 0) this.#dependents.delete(owner.uid);
    }
  }

  /** The owner `reference` of `dependent` names: live, missing, or of a kind this server does not serve. */
  #ownerOf(reference: OwnerReference, dependent: Node): Node | 'missing' | 'unknown-kind' {
    const type = this.#kinds.get(`${reference.apiVersion}/${reference.kind}`);
    if (type === undefined) return 'unknown-kind';
    const owner = this.#nodes.get(reference.uid);
    if (owner === undefined || owner.type !== type || owner.name !== reference.name) return 'missing';
    if (type.namespaced && owner.namespace !== dependent.namespace) return 'missing';
    return owner;
  }

  async #processDependent(uid: string): Promise<void> {
    const node = this.#nodes.get(uid);
    if (node === undefined || node.owners.length === 0) return;
    if (node.deleting && !node.finalizers.includes(FOREGROUND_FINALIZER)) return;
    const stale = new Set<string>();
    let solid = false;
    let waiting = false;
    for (const reference of node.owners) {
      const owner = this.#ownerOf(reference, node);
      if (owner === 'missing') stale.add(reference.uid);
      else if (owner !== 'unknown-kind' && waitsForDependents(owner)) {
        waiting = true;
        stale.add(reference.uid);
      } else solid = true;
    }
    if (solid) {
      if (stale.size > 0) await this.#removeOwnerReferences(uid, node, stale);
      return;
    }
    const hasDependents = (this.#dependents.get(uid)?.size ?? 0) > 0;
    let policy: PropagationPolicy = 'Background';
    if ((waiting && hasDependents) || node.finalizers.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else if (node.finalizers.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    await this.#writer.delete(node.type, node.namespace, node.name, { dryRun: false, preconditions: { uid }, propagationPolicy: policy });
  }

  async #processOwner(uid: string): Promise<void> {
    const node = this.#nodes.get(uid);
    if (node === undefined || !node.deleting) return;
    if (node.finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dependent of [...(this.#dependents.get(uid) ?? [])]) {
        const dependentNode = this.#nodes.get(dependent);
        if (dependentNode !== undefined) await this.#removeOwnerReferences(dependent, dependentNode, new Set([uid]));
      }
      await this.#removeFinalizer(uid, ORPHAN_FINALIZER);
      return;
    }
    if (!node.finalizers.includes(FOREGROUND_FINALIZER)) return;
    for (const dependent of [...(this.#dependents.get(uid) ?? [])]) await this.#processDependent(dependent);
    const blocking = [...(this.#dependents.get(uid) ?? [])].some((dependent) =>
      this.#nodes.get(dependent)?.owners.some((owner) => owner.uid === uid && owner.blockOwnerDeletion),
    );
    if (!blocking) await this.#removeFinalizer(uid, FOREGROUND_FINALIZER);
  }

  async #removeOwnerReferences(uid: string, node: Node, owners: ReadonlySet<string>): Promise<void> {
    const current = await this.#writer.get(node.type, node.namespace, node.name);
    if (current.metadata.uid !== uid) return;
    const references = current.metadata['ownerReferences'];
    const kept = Array.isArray(references) ? references.filter((reference) => !(isJsonObject(reference) && owners.has(String(reference['uid'])))) : [];
    const patch = { metadata: { ownerReferences: kept.length > 0 ? kept : null, resourceVersion: current.metadata.resourceVersion } };
    await this.#writer.patch(node.type, node.namespace, node.name, MERGE_PATCH, patch, { dryRun: false });
  }

  async #removeFinalizer(uid: string, finalizer: string): Promise<void> {
    const node = this.#nodes.get(uid);
    if (node === undefined) return;
    const current = await this.#writer.get(node.type, node.namespace, node.name);
    if (current.metadata.uid !== uid) return;
    const kept = finalizersOf(current).filter((name) => name !== finalizer);
    const patch = { metadata: { finalizers: kept.length > 0 ? kept : null, resourceVersion: current.metadata.resourceVersion } };
    await this.#writer.patch(node.type, node.namespace, node.name, MERGE_PATCH, patch, { dryRun: false });
  }
}
