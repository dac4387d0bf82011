import { describe, expect, it } from 'vitest';
import { createNamespaceMapper } from '../../../src/translate/namespace-mapper.js';
import { TranslateError, TranslateErrorCode } from '../../../src/translate/translate-error.js';

const mapper = (byName: Record<string, string>, vclusterName = 'my-vc') =>
  createNamespaceMapper({ byName, vclusterName, reservedHostNamespace: 'vcluster-my-vc' });

describe('createNamespaceMapper', () => {
  const docs = mapper({
    'frontend-prod': 'customer-project-alpha-prod',
    'team-a-*': 'h-team-a-*',
    'datasets-*': '${name}-data-*',
  });

  it('maps exact names both ways', () => {
    expect(docs.toHost('frontend-prod')).toEqual({ mapped: true, namespace: 'customer-project-alpha-prod' });
    expect(docs.toVirtual('customer-project-alpha-prod')).toEqual({ mapped: true, namespace: 'frontend-prod' });
  });

  it('carries the part the * matched over to the other side', () => {
    expect(docs.toHost('team-a-dev')).toEqual({ mapped: true, namespace: 'h-team-a-dev' });
    expect(docs.toVirtual('h-team-a-staging')).toEqual({ mapped: true, namespace: 'team-a-staging' });
  });

  it('replaces ${name} with the vcluster name', () => {
    expect(docs.toHost('datasets-raw')).toEqual({ mapped: true, namespace: 'my-vc-data-raw' });
    expect(docs.toVirtual('my-vc-data-processed')).toEqual({ mapped: true, namespace: 'datasets-processed' });
  });

  it('reports namespaces that match nothing', () => {
    const result = docs.toHost('kube-system');
    expect(result.mapped).toBe(false);
    expect(!result.mapped && result.reason).toContain('matches no entry');
    expect(docs.toVirtual('vcluster-my-vc').mapped).toBe(false);
  });

  it('prefers exact entries, then the longest pattern prefix', () => {
    const m = mapper({ 'a-*': 'x-*', 'a-b-*': 'y-*', 'a-b-c': 'exact' });
    expect(m.toHost('a-b-c')).toEqual({ mapped: true, namespace: 'exact' });
    expect(m.toHost('a-b-d')).toEqual({ mapped: true, namespace: 'y-d' });
    expect(m.toHost('a-z')).toEqual({ mapped: true, namespace: 'x-z' });
  });

  it('refuses a mapped name that is not a valid namespace', () => {
    const m = mapper({ 'team-*': 'host-team-*' });
    expect(m.toHost('team-').mapped).toBe(false);
    const long = `team-${'z'.repeat(58)}`; // valid virtual name, host side would be 68 characters
    const result = m.toHost(long);
    expect(result.mapped).toBe(false);
    expect(!result.mapped && result.reason).toContain('not a valid namespace name');
  });

  it('throws a coded error listing every broken rule', () => {
    let caught: unknown;
    try {
      mapper({ 'a-*': 'exact', 'b*c*': 'd-*', ok: 'ok-host' });
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TranslateError);
    const error = caught as TranslateError;
    expect(error.code).toBe(TranslateErrorCode.INVALID_NAMESPACE_MAPPING);
    expect(error.message).toContain('byName["a-*"]');
    expect(error.message).toContain('byName["b*c*"]');
    expect(error.message).not.toContain('byName["ok"]');
  });

  it('rejects mappings onto the virtual cluster’s own host namespace', () => {
    expect(() => mapper({ x: 'vcluster-my-vc' })).toThrow(/own host namespace/);
    expect(() => mapper({ 'x-*': 'vcluster-*' })).toThrow(/own host namespace/);
    expect(() => mapper({ x: 'vcluster-${name}' })).toThrow(/own host namespace/);
  });

  it('checks lengths once ${name} is known', () => {
    expect(() => mapper({ 'a-*': '${name}-*' }, 'n'.repeat(40))).toThrow(/at most 32/);
    expect(() => mapper({ 'a-*': '${name}-*' }, 'short')).not.toThrow();
  });
});
