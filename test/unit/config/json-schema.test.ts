import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_JSON_SCHEMA_PATH, buildConfigJsonSchema, renderConfigJsonSchema } from '../../../src/config/json-schema.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const schemaFile = `${repoRoot}${CONFIG_JSON_SCHEMA_PATH}`;

describe('config/vcluster.schema.json', () => {
  it('is up to date with src/config/schema.ts', async () => {
    const expected = renderConfigJsonSchema();
    if (process.env['VCSYNC_UPDATE_SCHEMA'] === '1') await writeFile(schemaFile, expected);
    const actual = await readFile(schemaFile, 'utf8').catch(() => '');
    expect(
      actual === expected,
      `${CONFIG_JSON_SCHEMA_PATH} is out of date; regenerate it with: VCSYNC_UPDATE_SCHEMA=1 npx vitest run test/unit/config`,
    ).toBe(true);
  });

  it('is plain draft-07 JSON Schema that closes the sections vcsync owns', () => {
    const schema = buildConfigJsonSchema();
    expect(schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);
    expect(validate({ sync: { toHost: { endpoints: { enabled: true } } }, controlPlane: { anything: 1 } })).toBe(true);
    expect(validate({ sync: { toHost: { endpoints: { enabeld: true } } } })).toBe(false);
    expect(validate({ sync: { toHost: { namespaces: { mappings: { byName: { a: 1 } } } } } })).toBe(false);
  });

  it('accepts the example config/vcluster.yaml', async () => {
    const example: unknown = parse(await readFile(`${repoRoot}config/vcluster.yaml`, 'utf8'));
    const validate = new Ajv({ allErrors: true }).compile(buildConfigJsonSchema());
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });
});
