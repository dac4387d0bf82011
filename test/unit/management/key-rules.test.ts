import { describe, expect, it } from 'vitest';
import { describeKeyRules, isDiscoveryRead } from '../../../src/management/key-rules.js';
import { nonResourceAttributes } from '../../../src/management/request-attributes.js';

const DISCOVERY = { verbs: ['get'], nonResourceURLs: ['/version', '/version/', '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*'] };

describe('isDiscoveryRead (every key reads discovery, as system:discovery grants)', () => {
  it.each([
    ['get', '/version', true],
    ['get', '/apis/management.loft.sh/v1', true],
    ['get', '/openapi/v3/apis/management.loft.sh/v1', true],
    ['get', '/openapi/v2', true],
    ['post', '/version', false],
    ['get', '/metrics', false],
    ['get', '/healthz', false],
  ] as const)('%s %s → %s', (verb, path, expected) => {
    expect(isDiscoveryRead(nonResourceAttributes(verb.toUpperCase(), path))).toBe(expected);
  });
});

describe('describeKeyRules (kubectl auth can-i --list)', () => {
  it('a key without scope restriction may reach every non-resource path, and the list is complete', () => {
    expect(describeKeyRules(undefined)).toEqual({ nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false });
    expect(describeKeyRules(Object.freeze({ roles: [], rules: [] }))).toEqual({ nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false });
  });

  it.each([
    ['platformCLI', { roles: [{ role: 'platformCLI' }] }, [DISCOVERY, { verbs: ['get', 'head'], nonResourceURLs: ['/version', '/api', '/api/*', '/apis', '/apis/*', '/openapi/*'] }], false],
    ['metrics-reader', { roles: [{ role: 'metrics-reader' }] }, [DISCOVERY, { verbs: ['get', 'head'], nonResourceURLs: ['/metrics'] }], false],
    ['a role that allows nothing here', { roles: [{ role: 'agent' }] }, [DISCOVERY], false],
    ['a rule with URLs and no verbs (every verb)', { rules: [{ nonResourceURLs: ['/metrics'] }] }, [DISCOVERY, { verbs: ['*'], nonResourceURLs: ['/metrics'] }], false],
    ['a rule for clusters only (not this server)', { rules: [{ nonResourceURLs: ['/metrics'], requestTargets: ['Cluster'] }] }, [DISCOVERY], false],
    ['one virtual cluster (granted by project and name)', { virtualClusters: [{ project: 'p', virtualCluster: 'v' }] }, [DISCOVERY], true],
    ['a rule naming objects', { rules: [{ verbs: ['get'], resources: [{ group: 'management.loft.sh', resources: ['ownedaccesskeys'], resourceNames: ['mine'] }] }] }, [DISCOVERY], true],
  ])('%s', (_name, scope, nonResourceRules, incomplete) => {
    expect(describeKeyRules(scope)).toEqual({ nonResourceRules, incomplete });
  });
});
