import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { randomBytes } from 'node:crypto';
import { certificateLifetime, ingressHostOf, ingressServer, type KubeConfigInput, KubeConfigWriter, kubeConfigText } from '../../../src/management/kube-configs.js';

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

  it('KubeConfigWriter writes the text kubeConfigText writes, for every credential, cluster and CA', () => {
    const writer = new KubeConfigWriter();
    const caCertPem = `-----BEGIN CERTIFICATE-----\n${randomBytes(600).toString('base64')}\n-----END CERTIFICATE-----\n`;
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${randomBytes(400).toString('base64url')}.${randomBytes(256).toString('base64url')}`;
    const inputs: KubeConfigInput[] = [
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { token: jwt } },
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { token: `eyJ${randomBytes(300).toString('base64url')}` } },
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { 'client-certificate-data': `LS0t${randomBytes(900).toString('base64')}`, 'client-key-data': `LS0t${randomBytes(200).toString('base64')}` } },
      { clusterName: 'vc1', server: 'https://other.example.com:8443', caCertPem, user: { token: jwt } },
      { clusterName: 'vc2', server: 'https://vc1.example.com', caCertPem: 'PEM', user: { token: jwt } },
      // Not plain credentials: written the long way.
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { token: 't' } },
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { token: '12345678901234567890123' } },
      { clusterName: 'vc1', server: 'https://vc1.example.com', caCertPem, user: { token: 'a token with spaces in it, quite long' } },
    ];
    for (const input of [...inputs, ...inputs]) expect(writer.text(input)).toBe(kubeConfigText(input));
  });
});
