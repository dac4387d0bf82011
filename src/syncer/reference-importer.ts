import { isDeepStrictEqual } from 'node:util';
import { isNotFound } from '../apimachinery/index.js';
import { collectionPath, objectPath, type ResourceType } from '../kube/api-path.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { CallOptions } from '../kube/rest-client.js';
import type { Logger } from '../observe/logger.js';
import type { ReferenceImport } from '../patches/index.js';
import { ANNOTATION_OBJECT_HOST_NAME, ANNOTATION_OBJECT_NAME, ANNOTATION_OBJECT_NAMESPACE, LABEL_MANAGED_BY } from '../translate/keys.js';
import { formatObjectKind } from '../translate/object-metadata.js';
import type { Translator } from '../translate/translator.js';
import { TerminalError } from './reconcile-outcome.js';

/** Reads and writes the importer makes; {@link RestClient} satisfies it. */
export interface ImportClient {
  get<T>(path: string, options?: CallOptions): Promise<T>;
  create<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  update<T>(path: string, body: T, options?: CallOptions): Promise<T>;
}

/** A kind `reference` patches can import, with the fields copied to the host. */
interface ImportableKind {
  type: ResourceType;
  fields: readonly string[];
}

/**
 * The kinds a `reference` patch imports into the host: namespaced core/v1 objects whose whole
 * meaning is their data. Any other kind referenced is only renamed (the reference is rewritten,
 * nothing is copied): the syncer has no rules for writing it on the host.
 */
export const IMPORTABLE_KINDS: Readonly<Record<string, ImportableKind>> = Object.freeze({
  'v1/ConfigMap': { type: { version: 'v1', resource: 'configmaps' }, fields: ['data', 'binaryData', 'immutable'] },
  'v1/Secret': { type: { version: 'v1', resource: 'secrets' }, fields: ['data', 'type', 'immutable'] },
});

/**
 * Imports the objects `reference` patches point at into the host (virtual → host), under the name
 * the reference was rewritten to (the `v` + hash form in single-namespace mode). The copy carries
 * the usual vcluster labels and annotations, and an ownerReference to every host object that
 * references it, so the host's garbage collector removes it once no synced object refers to it.
 *
 * A referenced object that does not exist in the virtual cluster is not an error: the rewritten
 * reference stays, and the object is imported on a later sync of the referencing object (every
 * change to it, and the periodic resync). A host object of that name that vcsync did not import
 * is never overwritten ({@link TerminalError}).
 */
export class ReferenceImporter {
  readonly #virtual: ImportClient;
  readonly #host: ImportClient;
  readonly #logger: Logger;

  constructor(options: { virtualClient: ImportClient; hostClient: ImportClient; logger: Logger }) {
    this.#virtual = options.virtualClient;
    this.#host = options.hostClient;
    this.#logger = options.logger;
  }

  /** Imports every `toHost` import of an importable kind, owned by `owner` (the host object written). */
  async importAll(imports: readonly ReferenceImport[], owner: KubeObject, translator: Translator): Promise<void> {
    for (const item of imports) {
      if (item.direction !== 'toHost') continue;
      const kind = IMPORTABLE_KINDS[`${item.apiVersion}/${item.kind}`];
      if (kind === undefined) {
        this.#logger.debug({ kind: item.kind, name: item.name }, 'reference rewritten; kind is not imported');
        continue;
      }
      await this.#importOne(item, kind, owner, translator);
    }
  }

  async #importOne(item: ReferenceImport, kind: ImportableKind, owner: KubeObject, translator: Translator): Promise<void> {
    const virtual = await getOrUndefined(this.#virtual, objectPath(kind.type, item.namespace, item.name));
    if (virtual === undefined) {
      this.#logger.debug({ kind: item.kind, key: `${item.namespace}/${item.name}` }, 'referenced object does not exist yet');
      return;
    }
    const hostPath = objectPath(kind.type, item.hostNamespace, item.hostName);
    const existing = await getOrUndefined(this.#host, hostPath);
    if (existing !== undefined && !importedFrom(existing, item, translator.vclusterName)) {
      throw new TerminalError(
        'HostObjectNotManaged',
        `host ${item.kind} ${item.hostNamespace}/${item.hostName} exists but was not imported by virtual cluster ` +
          `${translator.vclusterName}; delete or rename it on the host so the reference to ${item.namespace}/${item.name} can be imported`,
      );
    }
    const desired = this.#desired(virtual, existing, item, kind, owner, translator);
    if (existing === undefined) {
      await this.#host.create(collectionPath(kind.type, item.hostNamespace), desired);
      this.#logger.info({ kind: item.kind, key: `${item.namespace}/${item.name}`, host: `${item.hostNamespace}/${item.hostName}` }, 'imported referenced object');
      return;
    }
    if (sameContent(existing, desired, kind)) return;
    await this.#host.update(hostPath, { ...desired, metadata: { ...desired.metadata, resourceVersion: existing.metadata?.resourceVersion } });
    this.#logger.info({ kind: item.kind, key: `${item.namespace}/${item.name}`, host: `${item.hostNamespace}/${item.hostName}` }, 'updated imported object');
  }

  #desired(virtual: KubeObject, existing: KubeObject | undefined, item: ReferenceImport, kind: ImportableKind, owner: KubeObject, translator: Translator): KubeObject {
    const translated = translator.hostMetadata({
      virtual: virtual.metadata ?? {},
      kind: formatObjectKind(item.apiVersion, item.kind),
      ...(existing?.metadata !== undefined ? { existingHost: existing.metadata } : {}),
    });
    if (!translated.synced) throw new TerminalError('NotSynced', translated.reason);
    const annotations = { ...translated.metadata.annotations, [ANNOTATION_OBJECT_HOST_NAME]: item.hostName };
    const owners = [...((existing?.metadata?.['ownerReferences'] as OwnerReference[] | undefined) ?? [])];
    const ownerRef: OwnerReference = {
      apiVersion: owner.apiVersion ?? 'v1',
      kind: owner.kind ?? '',
      name: owner.metadata?.name ?? '',
      uid: owner.metadata?.uid ?? '',
    };
    if (!owners.some((o) => o.uid === ownerRef.uid)) owners.push(ownerRef);
    const body: Record<string, unknown> = {
      apiVersion: item.apiVersion,
      kind: item.kind,
      metadata: { ...translated.metadata, name: item.hostName, namespace: item.hostNamespace, annotations, ownerReferences: owners },
    };
    const source = virtual as Record<string, unknown>;
    for (const field of kind.fields) if (source[field] !== undefined) body[field] = source[field];
    return body as KubeObject;
  }
}

interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

function importedFrom(host: KubeObject, item: ReferenceImport, vclusterName: string): boolean {
  const meta = host.metadata;
  return (
    meta?.labels?.[LABEL_MANAGED_BY] === vclusterName &&
    meta.annotations?.[ANNOTATION_OBJECT_NAME] === item.name &&
    meta.annotations[ANNOTATION_OBJECT_NAMESPACE] === item.namespace
  );
}

function sameContent(existing: KubeObject, desired: KubeObject, kind: ImportableKind): boolean {
  const a = existing as Record<string, unknown>;
  const b = desired as Record<string, unknown>;
  return (
    kind.fields.every((f) => isDeepStrictEqual(a[f], b[f])) &&
    isDeepStrictEqual(existing.metadata?.labels ?? {}, desired.metadata?.labels ?? {}) &&
    isDeepStrictEqual(existing.metadata?.annotations ?? {}, desired.metadata?.annotations ?? {}) &&
    isDeepStrictEqual(existing.metadata?.['ownerReferences'] ?? [], desired.metadata?.['ownerReferences'] ?? [])
  );
}

async function getOrUndefined(client: ImportClient, path: string): Promise<KubeObject | undefined> {
  try {
    return await client.get<KubeObject>(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
