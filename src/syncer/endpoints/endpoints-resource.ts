import { CoreResources } from '../../kube/api-path.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { objectKey } from '../../kube/object-key.js';
import type { Translator } from '../../translate/translator.js';
import type { SecondarySource, SyncDecision, ToHostResource } from '../to-host-resource.js';
import type { Endpoints, Service } from './endpoints-types.js';
import { ENDPOINTS_EXCLUDED_ANNOTATIONS, serviceWantsEndpointsSync, translateSubsetsToHost, type PodRefTranslator } from './translate.js';

/** Read access to the virtual Services cache. */
export interface ServiceLookup {
  get(key: string): Service | undefined;
}

/** `default/kubernetes` is the virtual API server's own Endpoints; vcluster maps it separately. */
export const KUBERNETES_ENDPOINTS_KEY = 'default/kubernetes';

/**
 * The Endpoints resource for the generic to-host controller, with vcluster's Endpoints rules: synced only
 * when a virtual Service of the same name exists and has no selector; subsets copied with Pod
 * targetRefs translated; the virtual control plane's leader annotation never copied.
 */
export function endpointsResource(services: ServiceLookup): ToHostResource<Endpoints> {
  return {
    name: 'endpoints',
    type: CoreResources.endpoints,
    apiVersion: 'v1',
    kind: 'Endpoints',
    excludedAnnotations: ENDPOINTS_EXCLUDED_ANNOTATIONS,
    ignores: (key) =>
      key === KUBERNETES_ENDPOINTS_KEY
        ? `${key} is never synced: it is the virtual API server's own Endpoints (vcluster maps it to the host Endpoints named after the virtual cluster, which vcsync does not write)`
        : undefined,
    decide(virtual: Endpoints): SyncDecision {
      const service = services.get(objectKey(virtual));
      if (service === undefined) return { sync: false, reason: 'no virtual Service of the same name' };
      if (!serviceWantsEndpointsSync(service)) {
        return { sync: false, reason: 'the Service has a selector: the host endpoints controller owns these Endpoints' };
      }
      return { sync: true };
    },
    hostFields(virtual: Endpoints, translator: Translator): Record<string, unknown> {
      const subsets = translateSubsetsToHost(virtual.subsets, virtual.metadata?.namespace ?? '', hostPods(translator));
      return subsets.length > 0 ? { subsets } : {};
    },
  };
}

/**
 * Pod references through the translator, for the targetRefs of Endpoints and EndpointSlices: the
 * host Pod's name and namespace; a Pod in a namespace that is not synced keeps its virtual
 * identity (there is no host Pod to point at).
 */
export function hostPods(translator: Translator): PodRefTranslator {
  return {
    hostRef(ref) {
      const placement = translator.hostRef(ref);
      return placement.synced ? placement.ref : ref;
    },
  };
}

/** Services wake the Endpoints of the same name: a Service created or changed later decides the sync. */
export const servicesWakeEndpoints: SecondarySource = {
  keysFor: (service: KubeObject) => [objectKey(service)],
};
