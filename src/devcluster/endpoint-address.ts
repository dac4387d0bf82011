/**
 * IP address checks of Endpoints and EndpointSlices, as kube-apiserver words them: an address must
 * parse (IPv4 leniently, as Go's sloppy parser does, then refused for leading zeros), must not be an
 * IPv4-mapped IPv6 address, and must not be unspecified, loopback or link-local.
 */
import { isIPv6 } from 'node:net';

/** The example every "not an IP" message of Kubernetes names. */
export const VALID_IP_EXAMPLE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** An address as parsed: its 4 or 16 bytes, and what its spelling says. */
interface ParsedIp {
  readonly bytes: readonly number[];
  readonly leadingZeros: boolean;
  readonly ipv4Mapped: boolean;
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,10}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

function parseIpv6(text: string): number[] | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let body = text;
  const tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail.push(...v4);
    body = `${body.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = body.split('::');
  const groups = (part: string | undefined): number[] => (part === undefined || part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = groups(head);
  const back = groups(rest);
  const words = rest === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Parses `text` as Go's `ParseIPSloppy` would (IPv4 with leading zeros accepted); undefined when not an IP. */
function parseIp(text: string): ParsedIp | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { bytes: v4, leadingZeros: text.split('.').some((part) => part.length > 1 && part.startsWith('0')), ipv4Mapped: false };
  const v6 = parseIpv6(text);
  if (v6 === undefined) return undefined;
  const mapped = v6.slice(0, 10).every((byte) => byte === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return { bytes: mapped ? v6.slice(12) : v6, leadingZeros: false, ipv4Mapped: mapped };
}

/**
 * Why `text` is not a valid IP address for a new object (`IsValidIPForLegacyField`), at most one
 * reason, or undefined when it is valid.
 */
export function ipSyntaxError(text: string): string | undefined {
  const ip = parseIp(text);
  if (ip === undefined) return VALID_IP_EXAMPLE;
  if (ip.leadingZeros) return 'must not have leading 0s';
  if (ip.ipv4Mapped) return 'must not be an IPv4-mapped IPv6 address';
  return undefined;
}

/** The IP family of a valid address, or undefined when `text` does not parse. */
export function ipFamilyOf(text: string): 4 | 6 | undefined {
  const ip = parseIp(text);
  if (ip === undefined) return undefined;
  return ip.bytes.length === 4 ? 4 : 6;
}

/**
 * Why `text` may not be an endpoint (`ValidateEndpointIP`), every reason in Kubernetes' order:
 * not an IP at all, unspecified, loopback, link-local, link-local multicast. Empty when allowed.
 */
export function endpointIpErrors(text: string): string[] {
  const ip = parseIp(text);
  if (ip === undefined) return ['must be a valid IP address'];
  const [first = 0, second = 0, third = 0] = ip.bytes;
  const v4 = ip.bytes.length === 4;
  const errors: string[] = [];
  if (ip.bytes.every((byte) => byte === 0)) errors.push(`may not be unspecified (${text})`);
  const loopback = v4 ? first === 127 : ip.bytes.slice(0, 15).every((byte) => byte === 0) && ip.bytes[15] === 1;
  if (loopback) errors.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  const linkLocal = v4 ? first === 169 && second === 254 : first === 0xfe && (second & 0xc0) === 0x80;
  if (linkLocal) errors.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  const linkLocalMulticast = v4 ? first === 224 && second === 0 && third === 0 : first === 0xff && (second & 0x0f) === 0x02;
  if (linkLocalMulticast) errors.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errors;
}
