/**
 * Loads @peculiar/x509 on first use. The library's dependency injection (tsyringe) refuses to load
 * unless the global `Reflect` has the metadata API (`getMetadata`, `getOwnMetadata`,
 * `defineMetadata`), normally provided by the reflect-metadata package, which we do not depend
 * on. tsyringe only stores and reads a few keys on classes, so a small WeakMap-based version of
 * that API suffices. It is installed only when absent, and only when certificates are needed, so
 * importing this module has no side effect and a real polyfill, if present, wins.
 */
export async function loadX509(): Promise<typeof import('@peculiar/x509')> {
  ensureReflectMetadata();
  return import('@peculiar/x509');
}

type MetadataTarget = object;
type MetadataStore = WeakMap<MetadataTarget, Map<string | symbol | undefined, Map<unknown, unknown>>>;

interface ReflectMetadataApi {
  getMetadata?: (key: unknown, target: MetadataTarget, property?: string | symbol) => unknown;
  getOwnMetadata?: (key: unknown, target: MetadataTarget, property?: string | symbol) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: MetadataTarget, property?: string | symbol) => void;
  hasMetadata?: (key: unknown, target: MetadataTarget, property?: string | symbol) => boolean;
  hasOwnMetadata?: (key: unknown, target: MetadataTarget, property?: string | symbol) => boolean;
}

/** Adds the Reflect metadata API to the global `Reflect` unless some polyfill already did. */
export function ensureReflectMetadata(): void {
  const reflect = Reflect as unknown as ReflectMetadataApi;
  if (typeof reflect.getMetadata === 'function') {
    return;
  }
  const store: MetadataStore = new WeakMap();
  const own = (target: MetadataTarget, property: string | symbol | undefined, create: boolean): Map<unknown, unknown> | undefined => {
    let byProperty = store.get(target);
    if (byProperty === undefined) {
      if (!create) {
        return undefined;
      }
      byProperty = new Map();
      store.set(target, byProperty);
    }
    let entries = byProperty.get(property);
    if (entries === undefined && create) {
      entries = new Map();
      byProperty.set(property, entries);
    }
    return entries;
  };
  const hasOwn = (key: unknown, target: MetadataTarget, property?: string | symbol): boolean =>
    own(target, property, false)?.has(key) === true;
  const find = (key: unknown, target: MetadataTarget, property?: string | symbol): { found: boolean; value: unknown } => {
    for (let current: object | null = target; current !== null; current = Object.getPrototypeOf(current) as object | null) {
      const entries = own(current, property, false);
      if (entries?.has(key) === true) {
        return { found: true, value: entries.get(key) };
      }
    }
    return { found: false, value: undefined };
  };
  reflect.defineMetadata = (key, value, target, property) => {
    own(target, property, true)?.set(key, value);
  };
  reflect.getOwnMetadata = (key, target, property) => own(target, property, false)?.get(key);
  reflect.hasOwnMetadata = hasOwn;
  reflect.getMetadata = (key, target, property) => find(key, target, property).value;
  reflect.hasMetadata = (key, target, property) => find(key, target, property).found;
}
