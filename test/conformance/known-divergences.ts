/**
 * Every case of `cases.ts` whose answers differ today between the devcluster and the real
 * kube-apiserver, with the reason: "kept on purpose: …" (a difference we choose to keep) or
 * "to converge (issue 8 §5): …" (a gap to close). The conformance test fails when a case not
 * listed here diverges, and when a listed case now matches, so this list stays true. Left of
 * each diff line is the devcluster, right the kube-apiserver.
 */
export const KNOWN_DIVERGENCES: Readonly<Record<string, string>> = {
  // lists
  'list: items by label selector, in name order': 'to converge (issue 8 §5): devcluster puts apiVersion/kind on every list item; the real server omits them in JSON lists',
  'list: limit pages with continue and remainingItemCount': 'to converge (issue 8 §5): list items carry apiVersion/kind; remainingItemCount is sent with a label selector, where the real server omits it',
  'list: resourceVersion=0 is served': 'to converge (issue 8 §5): list items carry apiVersion/kind',
  'list: resourceVersionMatch without resourceVersion is invalid': 'to converge (issue 8 §5): devcluster lists instead of answering 422 Invalid (resourceVersionMatch forbidden)',
  'list: resourceVersionMatch=Exact lists the past': 'to converge (issue 8 §5): devcluster ignores resourceVersionMatch=Exact and lists the present',
  'list: resourceVersionMatch=Exact with resourceVersion=0 is invalid': 'to converge (issue 8 §5): devcluster lists instead of answering 422 Invalid',
  'list: sendInitialEvents is forbidden on a list': 'to converge (issue 8 §5): devcluster lists instead of answering 422 Invalid',
  // watches
  'watch: sendInitialEvents without allowWatchBookmarks is invalid': 'to converge (issue 8 §5): devcluster sends the initial-events-end BOOKMARK although the client did not allow bookmarks; the real server sends none',
  'watch: sendInitialEvents without resourceVersionMatch is invalid': 'to converge (issue 8 §5): devcluster starts the watch; the real server ends it with an ERROR 422 (resourceVersionMatch required)',
  'watch: leaving and entering a label selector are DELETED and ADDED': 'to converge (issue 8 §5): on leaving the selector devcluster sends DELETED with the new object; the real server sends the last object that matched',
  'watch: a field selector on metadata.name sees only that object': 'to converge (issue 8 §5): a resumed devcluster watch delivers events of objects the field selector excludes',
  'watch: a malformed resourceVersion is refused': 'kept on purpose: devcluster answers 400 BadRequest; the real server answers 500 for an unparsable resourceVersion, which clients must not rely on',
  // writes
  'write: strategic merge patch merges Service ports by port': 'to converge (issue 8 §5): devcluster appends the new port; the real server puts patch-list items first',
  'write: fieldValidation=Strict refuses an unknown field in a list item': 'to converge (issue 8 §5): devcluster does not check fields below the top level of spec lists',
  'write: fieldValidation=Strict refuses a duplicate field': 'to converge (issue 8 §5): devcluster accepts duplicate JSON keys (last wins) under Strict',
  'write: fieldValidation=Ignore drops unknown fields': 'to converge (issue 8 §5): devcluster stores unknown nested fields instead of pruning them',
  'write: an invalid fieldValidation value is refused': 'to converge (issue 8 §5): devcluster answers 400 BadRequest; the real server 422 Invalid with a FieldValueNotSupported cause',
  'write: an immutable ConfigMap refuses data changes': 'to converge (issue 8 §5): devcluster does not enforce immutable ConfigMaps',
  'write: a Service clusterIP cannot change': 'to converge (issue 8 §5): the cause names spec.clusterIP; the real server names spec.clusterIPs[0]',
  'write: Secret stringData becomes data': 'to converge (issue 8 §5): devcluster stores stringData as is instead of merging it base64-encoded into data',
  'write: create an EndpointSlice': 'to converge (issue 8 §5): devcluster does not default endpoints[].conditions and ports[].protocol',
  // deletion
  'delete: a uid precondition that does not match is a Conflict': 'to converge (issue 8 §5): the Conflict Status names details.kind "configmaps" (the resource); the real server names the kind "ConfigMap"',
  'delete: a namespace goes Terminating and then away': 'to converge (issue 8 §5): devcluster deletes a namespace at once (no spec.finalizers kubernetes, no Terminating phase)',
  'delete: creating in a terminating namespace is Forbidden': 'to converge (issue 8 §5): devcluster has no Terminating namespaces, so the create meets a missing namespace (404) instead of 403 NamespaceTerminating',
  'delete: background propagation collects dependents': 'to converge (issue 8 §5): devcluster has no garbage collector; dependents stay',
  'delete: orphan propagation keeps dependents without the owner reference': 'to converge (issue 8 §5): no orphan finalizer and no garbage collector removing ownerReferences',
  'delete: foreground propagation deletes dependents first': 'to converge (issue 8 §5): no foregroundDeletion finalizer and no garbage collector',
  // metadata
  'metadata: a ConfigMap has no generation': 'to converge (issue 8 §5): devcluster sets metadata.generation on every kind; the real server only on kinds with spec/status',
  'metadata: a Service generation moves with spec, not labels': 'to converge (issue 8 §5): the real Service strategy sets no generation at all; devcluster counts spec changes',
  'metadata: empty labels and annotations are normalised': 'to converge (issue 8 §5): devcluster keeps empty labels/annotations/data maps; the real server drops them',
  'metadata: Namespace defaulting': 'to converge (issue 8 §5): no kubernetes.io/metadata.name label and no spec.finalizers ["kubernetes"]',
  'metadata: a Service create owns its defaults, not its allocated cluster IP':
    'to converge (issue 8 §5): the devcluster records ownership after its Service strategy, which allocates too, so the creator also owns spec.clusterIP(s), ipFamilies and ipFamilyPolicy; the real server tracks fields after scheme defaulting and before the allocation',
  'metadata: Pod defaulting': 'to converge (issue 8 §5): devcluster applies few Pod defaults (imagePullPolicy, dnsPolicy, terminationMessage*, …)',
  // Endpoints and Service validation
  'endpoints: a loopback address is Invalid': 'to converge (issue 8 §5): devcluster accepts loopback Endpoints addresses the real server refuses',
  'endpoints: a non-IP address is Invalid': 'to converge (issue 8 §5): the real server reports a second cause (the address is also not a valid IP for endpoints)',
  'endpoints: an invalid hostname is Invalid': 'to converge (issue 8 §5): devcluster does not validate addresses[].hostname',
  'endpoints: two ports without names are Invalid': 'to converge (issue 8 §5): devcluster accepts unnamed ports when a subset has several',
  'service: headless without ports is allowed': 'to converge (issue 8 §5): a selector-less headless Service defaults to RequireDualStack with both families on the real server',
  'service: ExternalName needs an externalName': 'to converge (issue 8 §5): devcluster accepts type ExternalName without spec.externalName',
  'service: a clusterIP outside the range is Invalid': 'to converge (issue 8 §5): the cause names spec.clusterIP; the real server names spec.clusterIPs',
  // discovery and OpenAPI
  'discovery: /version fields': 'to converge (issue 8 §5): the real /version also has emulationMajor/Minor and minCompatibilityMajor/Minor',
  'openapi: v2 ConfigMap definition': 'to converge (issue 8 §5): devcluster serves no /openapi/v2 (kubectl explain and validation of older clients use it)',
  // errors
  'error: unknown resource is NotFound': 'to converge (issue 8 §5): devcluster adds details.causes [UnexpectedServerResponse]; the real Status has no details',
  'error: unknown group is NotFound': 'kept on purpose: the real server answers a text/plain "404 page not found" outside its API groups; devcluster always answers a Status (STYLE rule 7)',
  'error: PATCH on a collection is MethodNotAllowed': 'to converge (issue 8 §5): the real Status carries an empty details {}; devcluster none',
  'error: a namespaced resource without a namespace name in a body': 'to converge (issue 8 §5): devcluster sends details.name ""; the real server omits it',
  'error: Status shape of NotFound with message': 'to converge (issue 8 §5): devcluster sends details.group "" for core resources; the real server omits empty group',
};
