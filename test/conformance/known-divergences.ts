/**
 * Every case of `cases.ts` whose answers differ today between the devcluster and the real
 * kube-apiserver, with the reason: "kept on purpose: …" (a difference we choose to keep) or
 * "to converge (issue 8 §5): …" (a gap to close). The conformance test fails when a case not
 * listed here diverges, and when a listed case now matches, so this list stays true. Left of
 * each diff line is the devcluster, right the kube-apiserver.
 */
export const KNOWN_DIVERGENCES: Readonly<Record<string, string>> = {
  // watches
  'watch: a malformed resourceVersion is refused': 'kept on purpose: devcluster answers 400 BadRequest; the real server answers 500 for an unparsable resourceVersion, which clients must not rely on',
  // metadata
  'metadata: managedFields record the field manager': 'to converge (issue 8 §5): devcluster records no managedFields',
  'metadata: managedFields default manager of a JSON create': 'to converge (issue 8 §5): devcluster records no managedFields (the real default manager of a raw HTTP client is "unknown")',
  // server-side apply
  'apply: creates an object': 'to converge (issue 8 §5): devcluster has no server-side apply (415 for application/apply-patch+yaml)',
  'apply: without fieldManager is refused': 'to converge (issue 8 §5): no server-side apply (415)',
  'apply: a second manager changing a field is a Conflict': 'to converge (issue 8 §5): no server-side apply (415)',
  'apply: force takes the field over': 'to converge (issue 8 §5): no server-side apply (415)',
  'apply: dropping a field removes it': 'to converge (issue 8 §5): no server-side apply (415)',
  'apply: YAML body': 'to converge (issue 8 §5): no server-side apply (415); the real server answered 500 to this YAML apply body (not investigated yet)',
  'apply: a Service': 'to converge (issue 8 §5): no server-side apply (415)',
  'apply: a body with another name is refused': 'to converge (issue 8 §5): no server-side apply (415)',
  // errors
  'error: unknown group is NotFound': 'kept on purpose: the real server answers a text/plain "404 page not found" outside its API groups; devcluster always answers a Status (STYLE rule 7)',
};
