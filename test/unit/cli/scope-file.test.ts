import { describe, expect, it } from 'vitest';
import { parseScopeText } from '../../../src/cli/scope-file.js';
import { execCredentialVersion } from '../../../src/cli/run-credentials.js';

describe('a scope file, checked locally before anything is sent', () => {
  it('gives the scope of valid YAML or JSON', () => {
    expect(parseScopeText('clusters:\n  - cluster: loft-cluster\n', 's.yaml')).toEqual({ ok: true, scope: { clusters: [{ cluster: 'loft-cluster' }] } });
    expect(parseScopeText('{"roles": [{"role": "platformCLI"}]}', 's.json')).toEqual({ ok: true, scope: { roles: [{ role: 'platformCLI' }] } });
  });

  it.each([
    ['a list', '- cluster: a\n', ['s.yaml:1:1 scope: expected an object (roles, projects, spaces, virtualClusters, clusters, rules)']],
    ['a missing name', 'virtualClusters:\n  - project: p\n', ['s.yaml:2:5 scope.virtualClusters[0].virtualCluster: Required value: name one, or "*" for all']],
    ['an unknown role', 'roles:\n  - role: root\n', [expect.stringMatching(/^s\.yaml:2:11 scope\.roles\[0\]\.role: Unsupported value: "root"/)]],
  ])('locates %s at its line and column', (_, text, problems) => {
    expect(parseScopeText(text, 's.yaml')).toEqual({ ok: false, problems });
  });
});

describe('the ExecCredential version', () => {
  it('answers the version kubectl asked for, v1 otherwise', () => {
    expect(execCredentialVersion(undefined)).toBe('client.authentication.k8s.io/v1');
    expect(execCredentialVersion('{"apiVersion":"client.authentication.k8s.io/v1beta1"}')).toBe('client.authentication.k8s.io/v1beta1');
    expect(execCredentialVersion('{"apiVersion":"client.authentication.k8s.io/v9"}')).toBe('client.authentication.k8s.io/v1');
    expect(execCredentialVersion('not json')).toBe('client.authentication.k8s.io/v1');
  });
});
