/**
 * Patches that are small but would grow an object without bound, and patches whose
 * result is larger than a server stores: the security review's reproduction, shared by its security
 * test, the HTTP fuzzer and benchmarks/patch-growth.mjs. Every function is pure.
 */

/** One JSON patch operation. */
export type JsonPatchOperation = Record<string, unknown>;

/**
 * The 11 KB patch: one `add` of a 1,000-item list under `<container>/description`, then
 * `copies` (16) `copy` operations of `<container>` into itself, each doubling it: 2^16 times the
 * list if applied without bound. `container` is a JSON pointer to an existing object, such as
 * `/spec` or `/metadata/annotations`.
 */
export function copyDoublingPatch(container: string, copies = 16): JsonPatchOperation[] {
  const list = Array.from({ length: 1000 }, (_, index) => `i-${String(index).padStart(3, '0')}`);
  const operations: JsonPatchOperation[] = [{ op: 'add', path: `${container}/description`, value: list }];
  for (let copy = 0; copy < copies; copy += 1) operations.push({ op: 'copy', from: container, path: `${container}/copy-${copy}` });
  return operations;
}

/**
 * The 2 KB variant: a 1 KB string put under `<container>/d`, then `d` copied into itself
 * `doublings` (19) times: 512 MB if applied without bound.
 */
export function stringDoublingPatch(container: string, doublings = 19): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [{ op: 'add', path: `${container}/d`, value: { s: 'x'.repeat(1000) } }];
  for (let copy = 0; copy < doublings; copy += 1) operations.push({ op: 'copy', from: `${container}/d`, path: `${container}/d/${copy}` });
  return operations;
}

/** A JSON patch of `count` operations (each a passing `test` of `path`, whose value is `value`). */
export function manyOperationsPatch(count: number, path = '/kind', value: unknown = 'ConfigMap'): JsonPatchOperation[] {
  return Array.from({ length: count }, () => ({ op: 'test', path, value }));
}

/** A merge patch that puts a string of `bytes` under `data.<key>`: within the 3 MiB body limit, past an object limit. */
export function hugeMergePatch(bytes: number, key = 'huge'): Record<string, unknown> {
  return { data: { [key]: 'x'.repeat(bytes) } };
}
