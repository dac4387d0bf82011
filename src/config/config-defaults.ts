import { deepFreeze } from './deep-freeze.js';
import type {
  EndpointSlicesSyncConfig,
  EndpointsSyncConfig,
  NamespacesSyncConfig,
  PatchConfig,
  VclusterConfig,
  VclusterConfigInput,
} from './schema.js';

/** `sync.toHost.endpoints` when the file says nothing: sync on, no patches. */
export const DEFAULT_ENDPOINTS_SYNC: EndpointsSyncConfig = deepFreeze({ enabled: true, patches: [] });

/** `sync.toHost.endpointSlices` when the file says nothing: sync on (as vcluster 0.30+), no patches. */
export const DEFAULT_ENDPOINT_SLICES_SYNC: EndpointSlicesSyncConfig = deepFreeze({ enabled: true, patches: [] });

/** `sync.toHost.namespaces` when the file says nothing: single-namespace mode. */
export const DEFAULT_NAMESPACES_SYNC: NamespacesSyncConfig = deepFreeze({
  enabled: false,
  mappingsOnly: false,
  mappings: { byName: {} },
  extraLabels: {},
  patches: [],
});

/**
 * Merges the defaults into a schema-valid input and deep-freezes the result. The input is not
 * modified (its parts are copied); keys vcsync ignores are carried over as written.
 */
export function applyConfigDefaults(input: VclusterConfigInput): VclusterConfig {
  const copy = structuredClone(input);
  const sync = isRecord(copy.sync) ? copy.sync : {};
  const toHost = isRecord(sync.toHost) ? sync.toHost : {};
  const endpoints = toHost.endpoints ?? {};
  const endpointSlices = toHost.endpointSlices ?? {};
  const namespaces = toHost.namespaces ?? {};
  const patches = (list: PatchConfig[] | undefined): PatchConfig[] => list ?? [];
  return deepFreeze({
    ...copy,
    sync: {
      ...sync,
      toHost: {
        ...toHost,
        endpoints: {
          enabled: endpoints.enabled ?? DEFAULT_ENDPOINTS_SYNC.enabled,
          patches: patches(endpoints.patches),
        },
        endpointSlices: {
          enabled: endpointSlices.enabled ?? DEFAULT_ENDPOINT_SLICES_SYNC.enabled,
          patches: patches(endpointSlices.patches),
        },
        namespaces: {
          enabled: namespaces.enabled ?? DEFAULT_NAMESPACES_SYNC.enabled,
          mappingsOnly: namespaces.mappingsOnly ?? DEFAULT_NAMESPACES_SYNC.mappingsOnly,
          mappings: { byName: namespaces.mappings?.byName ?? {} },
          extraLabels: namespaces.extraLabels ?? {},
          patches: patches(namespaces.patches),
        },
      },
    },
  });
}

/** The configuration of an empty file: every default. */
export function defaultConfig(): VclusterConfig {
  return applyConfigDefaults({});
}

function isRecord<T>(value: T | undefined): value is T {
  return typeof value === 'object' && value !== null;
}
