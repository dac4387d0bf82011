import type { KubeObject } from '../../kube/kube-object.js';
import type { Translator } from '../../translate/translator.js';
import { hostPods, type ServiceLookup } from '../endpoints/endpoints-resource.js';
import { serviceWantsEndpointsSync } from '../endpoints/translate.js';
import { TerminalError } from '../reconcile-outcome.js';
import type { SyncDecision, ToHostResource } from '../to-host-resource.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { LABEL_SERVICE_NAME } from './slice-keys.js';
import { ENDPOINT_SLICES } from './slice-resource-type.js';
import { hostSliceFields, hostSliceLabels, sliceServiceName } from './translate.js';

/** The namespace and name of the virtual API server's own Service, whose slices are never synced. */
const KUBERNETES_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;

/**
 * The virtual slice has no `kubernetes.io/service-name` label: it belongs to no Service, so there
 * is no rule to decide its sync by. A terminal error (a `SyncError` event on the slice, no retry
 * until it changes); a host copy made while it had the label stays as it was.
 */
export function sliceWithoutService(slice: EndpointSlice): TerminalError {
  const { namespace = '', name = '' } = slice.metadata ?? {};
  return new TerminalError(
    'SliceWithoutService',
    `EndpointSlice ${namespace}/${name} has no label ${LABEL_SERVICE_NAME}, so vcsync cannot tell which Service it belongs to and does not sync it; ` +
      `label it with the name of a Service without a selector in namespace ${namespace}`,
  );
}

/** The host Service's name for the virtual Service `name` in `namespace`: the translator's, or `name` where nothing is placed. */
function hostServiceName(translator: Translator, namespace: string, name: string): string {
  const placement = translator.hostRef({ namespace, name });
  return placement.synced ? placement.ref.name : name;
}

/**
 * The EndpointSlices resource for the generic to-host controller. A slice is synced when the
 * virtual Service its `kubernetes.io/service-name` label names exists and has no selector (with a
 * selector the host's EndpointSlice controller makes the host slices, and a copy made earlier is
 * deleted); the slices of `default/kubernetes` never are; a slice without the label is a terminal
 * error. The host copy carries the host Service's real name in `kubernetes.io/service-name` and
 * vcsync's own `endpointslice.kubernetes.io/managed-by`; Pod targetRefs point at host Pods. A host
 * slice of the copy's name that this virtual cluster did not write is replaced, and a changed
 * addressType (immutable on the API server) is a delete and a create.
 */
export function endpointSlicesResource(services: ServiceLookup): ToHostResource<EndpointSlice> {
  return {
    // The config key's spelling: messages name `sync.toHost.<name>.enabled` with it (the metric and queue label is `endpointslices`).
    name: 'endpointSlices',
    type: ENDPOINT_SLICES,
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    excludedAnnotations: [],
    ignores: (key) =>
      key === `${KUBERNETES_SERVICE.namespace}/${KUBERNETES_SERVICE.name}`
        ? `${key} is never synced: it is the virtual API server's own EndpointSlice`
        : undefined,
    decide(virtual: EndpointSlice): SyncDecision {
      const serviceName = sliceServiceName(virtual);
      if (serviceName === undefined) throw sliceWithoutService(virtual);
      const namespace = virtual.metadata?.namespace ?? '';
      if (namespace === KUBERNETES_SERVICE.namespace && serviceName === KUBERNETES_SERVICE.name) {
        return { sync: false, reason: "a slice of default/kubernetes, the virtual API server's own Service: never synced" };
      }
      const service = services.get(`${namespace}/${serviceName}`);
      if (service === undefined) return { sync: false, reason: `no virtual Service ${serviceName} (named by its ${LABEL_SERVICE_NAME} label)` };
      if (!serviceWantsEndpointsSync(service)) {
        return { sync: false, reason: `the Service ${serviceName} has a selector: the host EndpointSlice controller makes its slices` };
      }
      return { sync: true };
    },
    hostFields: (virtual, translator) => ({ ...hostSliceFields(virtual, hostPods(translator)) }),
    hostLabels(virtual, translator) {
      const serviceName = sliceServiceName(virtual);
      const namespace = virtual.metadata?.namespace ?? '';
      return hostSliceLabels(serviceName === undefined ? undefined : hostServiceName(translator, namespace, serviceName));
    },
    recreateReason(host: EndpointSlice, desired: KubeObject): string | undefined {
      const from = host.addressType;
      const to = (desired as EndpointSlice).addressType;
      if (from === undefined || from === to) return undefined;
      return `its addressType changed from ${from} to ${String(to)}, which the API server does not let an update change`;
    },
    replacesForeignHostObject: true,
  };
}
