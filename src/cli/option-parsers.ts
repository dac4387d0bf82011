/** Parsers of command-line option values; each throws commander's InvalidArgumentError with the value. */
import { InvalidArgumentError } from 'commander';

/** The log levels pino writes, in order of severity, plus `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The address a port alone (`8080`, `:8080`) listens on: every interface, as Go's `:8080` does. */
const ALL_INTERFACES = '0.0.0.0';

/**
 * Parses a listen address: `HOST:PORT`, `[IPv6]:PORT`, or a port alone as `:PORT` or `PORT`
 * (every interface). Port 0 picks a free port.
 */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:(?:\[([^\]]+)\]|([^:[\]]+))?:)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new InvalidArgumentError(`expected HOST:PORT, :PORT or PORT (e.g. 127.0.0.1:6443), got "${value}"`);
  }
  return { host: match[1] ?? match[2] ?? ALL_INTERFACES, port };
}

/** Parses a finite number greater than zero (rates such as `--host-qps`). */
export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return parsed;
}

/** Parses a whole number of at least 1 (counts such as `--workers`). */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return Number(value);
}

/** `values` without the entries whose value is undefined (flags not given: their defaults apply). */
export function definedOnly<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Parses one of {@link LOG_LEVELS}. */
export function parseLogLevel(value: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === value);
  if (level === undefined) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return level;
}

/**
 * Parses a boolean written the ways environment variables write them: `true`/`false` or `1`/`0`
 * (case-insensitive). Anything else is an error, so `VCSYNC_NO_LEADER_ELECT=no` cannot silently
 * mean yes.
 */
export function parseBoolean(value: string): boolean {
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true' || normalized === '1') return true;
  if (normalized === 'false' || normalized === '0') return false;
  throw new InvalidArgumentError(`expected true, false, 1 or 0, got "${value}"`);
}

/**
 * Parses a DNS-1123 label (lowercase letters, digits and `-`, starting and ending with a letter or
 * digit, at most 63 characters): what Kubernetes requires of namespace names and what vcluster
 * requires of a virtual cluster's name, which becomes part of every host name.
 */
export function dnsLabel(value: string): string {
  if (value.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    throw new InvalidArgumentError(
      `expected a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters), got "${value}"`,
    );
  }
  return value;
}

/**
 * Parses a token issuer URL: `https://` with a host, no query or fragment, no trailing slash (it
 * must equal the tokens' `iss` exactly, which verifiers compare byte for byte).
 */
export function issuerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected an https:// URL such as https://vcsync-management.my-namespace.svc:9443, got "${value}"`);
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || value.endsWith('/')) {
    throw new InvalidArgumentError(`expected an https:// URL without query, fragment or trailing slash, got "${value}"`);
  }
  return value;
}

/** Parses a token-signing algorithm: RS256 or ES256. */
export function signingAlgorithm(value: string): 'RS256' | 'ES256' {
  if (value !== 'RS256' && value !== 'ES256') throw new InvalidArgumentError(`expected RS256 or ES256, got "${value}"`);
  return value;
}
