/** Parsers of command-line option values; each throws commander's InvalidArgumentError with the value. */
import { InvalidArgumentError } from 'commander';

/** Parses `HOST:PORT` (`[::1]:PORT` for IPv6); port 0 picks a free port. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (match === null || host === undefined || port > 65535) throw new InvalidArgumentError(`expected HOST:PORT (e.g. 127.0.0.1:6443), got "${value}"`);
  return { host, port };
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
