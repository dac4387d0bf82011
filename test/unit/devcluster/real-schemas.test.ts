import { describe, expect, it } from 'vitest';
import { coreKindDefinitions } from '../../../src/devcluster/core-kinds.js';
import { REAL_SCHEMAS_SERVER_VERSION, realKindSchema } from '../../../src/devcluster/real-schemas.js';

describe('the committed OpenAPI fixture of the real server', () => {
  it('records the kube-apiserver version it was captured from', () => {
    expect(REAL_SCHEMAS_SERVER_VERSION).toMatch(/^v1\.\d+\.\d+/);
  });

  it('covers every kind the devcluster serves, and its list, with every $ref resolvable', () => {
    for (const { group, version, kind } of coreKindDefinitions()) {
      const schema = realKindSchema({ group, version, kind });
      expect(schema, kind).toBeDefined();
      expect(realKindSchema({ group, version, kind: `${kind}List` }), `${kind}List`).toBeDefined();
      const components = schema?.components ?? {};
      const refs = JSON.stringify(components).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
      for (const ref of new Set(refs)) expect(components[ref.slice('"#/components/schemas/'.length, -1)], ref).toBeDefined();
    }
  });
});
