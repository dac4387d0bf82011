import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildConfigJsonSchema } from '../../../src/config/json-schema.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

// That the committed config/vcluster.schema.json is this schema: test/unit/tools/registry-files.test.ts.
describe('the JSON Schema of vcluster.yaml', () => {
  it('is plain draft-07 JSON Schema that closes the sections vcsync owns', () => {
    const schema = buildConfigJsonSchema(registryConfigSchema());
    expect(schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);
    expect(validate({ sync: { toHost: { endpoints: { enabled: true } } }, controlPlane: { anything: 1 } })).toBe(true);
    expect(validate({ sync: { toHost: { endpoints: { enabeld: true } } } })).toBe(false);
    expect(validate({ sync: { toHost: { namespaces: { mappings: { byName: { a: 1 } } } } } })).toBe(false);
  });

  it('accepts the example config/vcluster.yaml', async () => {
    const example: unknown = parse(await readFile(`${repoRoot}config/vcluster.yaml`, 'utf8'));
    const validate = new Ajv({ allErrors: true }).compile(buildConfigJsonSchema(registryConfigSchema()));
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });
});
