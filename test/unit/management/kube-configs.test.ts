import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { certificateLifetime, ingressHostOf, ingressServer, kubeConfigText } from '../../../src/management/kube-configs.js';

describe('kube configs of the virtual cluster, pure parts', () => {
  it('reads the ingress host only when controlPlane.ingress is enabled with a host', () => {
    expect(ingressHostOf({ controlPlane: { ingress: { enabled: true, host: 'vc1.example.com' } } })).toBe('vc1.example.com');
    expect(ingressHostOf({ controlPlane: { ingress: { enabled: true, host: '  vc1.example.com ' } } })).toBe('vc1.example.com');
    for (const config of [{}, { controlPlane: {} }, { controlPlane: { ingress: { host: 'a' } } }, { controlPlane: { ingress: { enabled: 'true', host: 'a' } } }, { controlPlane: { ingress: { enabled: true } } }, { controlPlane: { ingress: { enabled: true, host: ' ' } } }, { controlPlane: 'x' }]) {
      expect(ingressHostOf(config), JSON.stringify(config)).toBeUndefined();
    }
  });

  it('makes an https server of a bare host and keeps an explicit scheme', () => {
    expect(ingressServer('vc1.example.com')).toBe('https://vc1.example.com');
    expect(ingressServer('vc1.example.com:8443')).toBe('https://vc1.example.com:8443');
    expect(ingressServer('https://127.0.0.1:6443')).toBe('https://127.0.0.1:6443');
  });

  it('certificateTTL: absent is one day, 0 asks for no duration, anything else as given', () => {
    expect(certificateLifetime(undefined)).toBe(86_400);
    expect(certificateLifetime(null)).toBe(86_400);
    expect(certificateLifetime(0)).toBeUndefined();
    expect(certificateLifetime(3600)).toBe(3600);
  });

  it('writes one cluster, the user "vcluster", one context, current', () => {
    const text = kubeConfigText({ clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem: 'PEM', user: { token: 't' } });
    expect(parseYaml(text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'vc1', cluster: { server: 'https://vc1.example.com', 'certificate-authority-data': Buffer.from('PEM').toString('base64') } }],
      users: [{ name: 'vcluster', user: { token: 't' } }],
      contexts: [{ name: 'vc1', context: { cluster: 'vc1', user: 'vcluster' } }],
      'current-context': 'vc1',
      preferences: {},
    });
  });
});
