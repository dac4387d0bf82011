import type { ConfigSection } from './config-section.js';
import { deepFreeze, isJsonObject } from '../apimachinery/index.js';
import type { NamespacesSyncConfig, PatchConfig, VclusterConfig, VclusterConfigInput } from './schema.js';

/** `sync.toHost.namespaces` when the file says nothing: single-namespace mode. */
export const DEFAULT_NAMESPACES_SYNC: NamespacesSyncConfig = deepFreeze({
  enabled: false,
  mappingsOnly: false,
  mappings: { byName: {} },
  extraLabels: {},
  patches: [],
});

/**
 * Merges the defaults into a schema-valid input and deep-freezes the result: each of `sections`
 * gets its section's defaults for what the file leaves out, `sync.toHost.namespaces` its own.
 * The input is not modified (its parts are copied); keys vcsync ignores are carried over as
 * written.
 */
export function applyConfigDefaults(input: VclusterConfigInput, sections: readonly ConfigSection[]): VclusterConfig {
  const copy = structuredClone(input);
  const sync = isJsonObject(copy.sync) ? copy.sync : {};
  const toHost = isJsonObject(sync.toHost) ? sync.toHost : {};
  const namespaces = toHost.namespaces ?? {};
  const patches = (list: readonly PatchConfig[] | undefined): readonly PatchConfig[] => list ?? [];
  const resourceSections = Object.fromEntries(
    sections.map((section) => {
      const written = toHost[section.key];
      const fields = isJsonObject(written) ? (written as { enabled?: boolean; patches?: PatchConfig[] }) : {};
      return [
        section.key,
        { ...fields, enabled: fields.enabled ?? section.defaults.enabled, patches: fields.patches ?? structuredClone(section.defaults.patches) },
      ];
    }),
  );
  return deepFreeze({
    ...copy,
    sync: {
      ...sync,
      toHost: {
        ...toHost,
        ...resourceSections,
        namespaces: {
          enabled: namespaces.enabled ?? DEFAULT_NAMESPACES_SYNC.enabled,
          mappingsOnly: namespaces.mappingsOnly ?? DEFAULT_NAMESPACES_SYNC.mappingsOnly,
          mappings: { byName: namespaces.mappings?.byName ?? {} },
          extraLabels: namespaces.extraLabels ?? {},
          patches: patches(namespaces.patches),
        },
      },
    },
  }) as VclusterConfig;
}

/** The configuration of an empty file with `sections` (default none): every default. */
export function defaultConfig(sections: readonly ConfigSection[] = []): VclusterConfig {
  return applyConfigDefaults({}, sections);
}

