import { describe, expect, it } from 'vitest';
import { endpointIpErrors, ipSyntaxError } from '../../../src/devcluster/endpoint-address.js';

/** Both checks in the order Endpoints validation runs them, as kube-apiserver v1.36 answered. */
function errorsOf(ip: string): string[] {
  const syntax = ipSyntaxError(ip);
  return [...(syntax !== undefined ? [syntax] : []), ...endpointIpErrors(ip)];
}

const NOT_AN_IP = ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)', 'must be a valid IP address'];

describe('endpoint addresses', () => {
  it.each([
    ['10.1.2.3', []],
    ['2001:db8::1', []],
    ['239.1.1.1', []],
    ['::ffff:a01:203', ['must not be an IPv4-mapped IPv6 address']],
    ['::ffff:127.0.0.1', ['must not be an IPv4-mapped IPv6 address', 'may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['0127.0.0.1', ['must not have leading 0s', 'may not be in the loopback range (127.0.0.0/8, ::1/128)']],
    ['fe80::1%eth0', NOT_AN_IP],
    ['256.1.1.1', NOT_AN_IP],
    ['1.2.3', NOT_AN_IP],
    ['', NOT_AN_IP],
    ['::', ['may not be unspecified (::)']],
    ['ff12::1', ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']],
    ['fe80::1', ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
  ])('%s', (ip, expected) => {
    expect(errorsOf(ip)).toEqual(expected);
  });
});
