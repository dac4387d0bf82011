import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { copiedFiles } from '../../../tools/generate/copied-files.js';
import { BEGIN_MARKER, END_MARKER, GENERATE_COMMAND, registryGeneratedFiles, type GeneratedFile } from '../../../tools/generate/registry-files.js';
import { mergeRbacRules } from '../../../tools/generate/rbac-rules.js';
import { SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { configMapsSyncable } from '../../support/configmaps-resource/configmaps-syncable.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** `npm run generate` runs this file with VCSYNC_UPDATE_GENERATED=1: it writes instead of failing. */
const UPDATE = process.env['VCSYNC_UPDATE_GENERATED'] === '1';

/** Fails unless `path` holds what `file` renders from it (or writes that, under `npm run generate`). */
async function expectGenerated(path: string, file: GeneratedFile, what: string): Promise<void> {
  const current = await readFile(`${repoRoot}${path}`, 'utf8');
  const expected = file.render(current);
  if (UPDATE && expected !== current) await writeFile(`${repoRoot}${path}`, expected);
  const actual = UPDATE ? await readFile(`${repoRoot}${path}`, 'utf8') : current;
  expect(actual === expected, `${path} differs from ${what}; regenerate it with: ${GENERATE_COMMAND}`).toBe(true);
}

describe('files generated from the resource registry', () => {
  it.each(registryGeneratedFiles().map((file) => [file.path, file] as const))('%s is what the registry gives', async (path, file) => {
    await expectGenerated(path, file, 'what the resource registry gives');
  });

  it.each(copiedFiles().map((file) => [file.path, file] as const))('%s is an exact copy of its original', async (path, file) => {
    await expectGenerated(path, file, 'its original');
  });

  it('a manifest differing from the registry is caught: a rule edited by hand is put back', () => {
    const manifest = registryGeneratedFiles().find((file) => file.path === 'config/deploy/host-rbac.yaml');
    if (manifest === undefined) throw new Error('host-rbac.yaml is not generated');
    const edited = `rules:\n  ${BEGIN_MARKER}\n  - apiGroups: [""]\n    resources: ["endpoints"]\n    verbs: ["get"]\n  ${END_MARKER}\n  - apiGroups: ["x"]\n`;
    const rendered = manifest.render(edited);
    expect(rendered).not.toBe(edited);
    expect(rendered).toContain('resources: ["endpointslices"]');
    expect(rendered.endsWith(`  ${END_MARKER}\n  - apiGroups: ["x"]\n`)).toBe(true);
    expect(() => manifest.render('rules: []\n')).toThrow(/no generated block of rules/);
  });

  it('every generated block of a file is regenerated (the chart has a Role and a ClusterRole in one template); an unclosed one is an error', () => {
    const template = registryGeneratedFiles().find((file) => file.path === 'charts/vcsync/templates/host-rbac.yaml');
    if (template === undefined) throw new Error("the chart's host-rbac.yaml is not generated");
    const block = `  ${BEGIN_MARKER}\n  - apiGroups: ["x"]\n  ${END_MARKER}\n`;
    const rendered = template.render(`kind: Role\nrules:\n${block}---\nkind: ClusterRole\nrules:\n${block}`);
    expect(rendered.match(/resources: \["endpointslices"\]/g)).toHaveLength(2);
    expect(rendered).not.toContain('["x"]');
    expect(() => template.render(`rules:\n${block}rules:\n  ${BEGIN_MARKER}\n`)).toThrow(/no generated block of rules/);
  });

  it('a resource added to the registry adds its rules and its config section, nothing else changes', async () => {
    const withConfigMaps = [...SYNCABLE_RESOURCES, configMapsSyncable];
    const files = registryGeneratedFiles(withConfigMaps);
    const virtual = files.find((file) => file.path === 'config/deploy/virtual-rbac.yaml');
    const schema = files.find((file) => file.path === 'config/vcluster.schema.json');
    if (virtual === undefined || schema === undefined) throw new Error('missing generated file');
    const current = await readFile(`${repoRoot}config/deploy/virtual-rbac.yaml`, 'utf8');
    const documents = parseAllDocuments(virtual.render(current)).map((document) => document.toJS() as { kind: string; rules?: unknown[] });
    const rules = documents.find((document) => document.kind === 'ClusterRole')?.rules;
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['endpoints', 'configmaps'], verbs: ['get', 'list', 'watch', 'update', 'patch'] });
    const toHost = (JSON.parse(schema.render('')) as { properties: { sync: { properties: { toHost: { properties: Record<string, { properties?: object }> } } } } }).properties.sync.properties.toHost.properties;
    expect(Object.keys(toHost['configMaps']?.properties ?? {})).toEqual(['enabled', 'patches']);
  });
});

describe('mergeRbacRules', () => {
  it('unites verbs per group and resource, then groups resources with the same verbs, first seen first', () => {
    expect(
      mergeRbacRules([
        { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
        { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['watch', 'get', 'list'] },
        { apiGroups: [''], resources: ['services'], verbs: ['list', 'get'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['patch', 'update'] },
      ]),
    ).toEqual([
      { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    ]);
  });
});
