/**
 * Every case of `cases.ts` whose answers differ today between the devcluster and the real
 * kube-apiserver, with the reason: "kept on purpose: …" (a difference we choose to keep) or
 * "to converge: …" (a gap to close). The conformance test fails when a case not
 * listed here diverges, and when a listed case now matches, so this list stays true. Left of
 * each diff line is the devcluster, right the kube-apiserver.
 */
export const KNOWN_DIVERGENCES: Readonly<Record<string, string>> = {
  // watches
  'watch: a malformed resourceVersion is refused': 'kept on purpose: devcluster answers 400 BadRequest; the real server answers 500 for an unparsable resourceVersion, which clients must not rely on',
  // discovery
  'discovery: /apis/apps/v1 statefulsets': 'to converge: the devcluster serves no statefulsets/scale subresource (kubectl scale statefulset); it stores StatefulSets for manifests and patches, no controller acts on their replicas',
  // errors
  'error: annotations past 256 KiB in all are Invalid': 'kept on purpose: both answer 422 with the cause FieldValueTooLong on metadata.annotations; the real server repeats that cause four times on an update (the new metadata is validated in several places of its ConfigMap strategy), devcluster names it once',
  'error: unknown group is NotFound': 'kept on purpose: the real server answers a text/plain "404 page not found" outside its API groups; devcluster always answers a Status (STYLE rule 7)',
};
