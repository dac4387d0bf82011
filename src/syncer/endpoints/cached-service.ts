import type { NamedTransform } from '../../kube/informer.js';
import type { KubeObject, ObjectMeta } from '../../kube/kube-object.js';
import type { Service } from './endpoints-types.js';

/**
 * What the virtual Services cache keeps of a Service: its identity (name, namespace, uid,
 * resourceVersion, deletionTimestamp) and `spec.selector`, all the Endpoints syncer reads of it
 * (`serviceWantsEndpointsSync`, and its key to wake the Endpoints of the same name). Ports, IPs,
 * status, labels, annotations and managedFields are left out. The input is not modified.
 */
export function cachedService(service: Service): Service {
  const metadata = service.metadata;
  const identity: ObjectMeta = {};
  if (metadata?.name !== undefined) identity.name = metadata.name;
  if (metadata?.namespace !== undefined) identity.namespace = metadata.namespace;
  if (metadata?.uid !== undefined) identity.uid = metadata.uid;
  if (metadata?.resourceVersion !== undefined) identity.resourceVersion = metadata.resourceVersion;
  if (metadata?.deletionTimestamp !== undefined) identity.deletionTimestamp = metadata.deletionTimestamp;
  const selector = service.spec?.selector;
  // No spec at all when there is no selector: the syncer reads the two the same way.
  return selector === undefined ? { metadata: identity } : { metadata: identity, spec: { selector } };
}

/** {@link cachedService} as the virtual Services informer's transform. */
export const SERVICE_SELECTOR_ONLY: NamedTransform = Object.freeze({
  name: 'service-selector',
  // The informer of Services caches Services: the object is one, typed as the cache's T.
  apply: <T extends KubeObject>(object: T): T => cachedService(object as Service) as T,
  dropsManagedFields: true,
});
