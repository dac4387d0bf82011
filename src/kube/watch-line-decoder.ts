import { StringDecoder } from 'node:string_decoder';
import { BadResponseError } from './kube-errors.js';
import type { KubeObject, WatchEvent, WatchEventType } from './kube-object.js';

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * Splits a watch response body into lines as chunks arrive. Chunk boundaries are arbitrary: a
 * chunk may hold several lines, part of one, or end inside a multi-byte UTF-8 character; the
 * decoder keeps the remainder for the next chunk. `\r\n` endings and blank lines are tolerated.
 */
export class WatchLineDecoder {
  readonly #utf8 = new StringDecoder('utf8');
  #pending = '';

  /** Feeds one chunk; returns the complete, non-blank lines it finished (without line endings). */
  push(chunk: Buffer | string): string[] {
    this.#pending += typeof chunk === 'string' ? chunk : this.#utf8.write(chunk);
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const end = this.#pending.indexOf('\n', start);
      if (end < 0) break;
      const line = this.#pending.slice(start, end).trim();
      if (line !== '') lines.push(line);
      start = end + 1;
    }
    this.#pending = this.#pending.slice(start);
    return lines;
  }

  /** Ends the stream; returns the last line when the body did not end with a newline. */
  end(): string[] {
    const rest = (this.#pending + this.#utf8.end()).trim();
    this.#pending = '';
    return rest === '' ? [] : [rest];
  }
}

/**
 * Parses one watch line into an event. Throws {@link BadResponseError} when the line is not a
 * JSON object with a known `type` and an object `object`.
 */
export function parseWatchEvent<T extends KubeObject>(line: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new BadResponseError(`watch stream line is not JSON: ${line.slice(0, 200)}`, err);
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new BadResponseError(`watch stream line is not an object: ${line.slice(0, 200)}`);
  }
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    throw new BadResponseError(`watch event has unknown type ${JSON.stringify(type)}`);
  }
  if (typeof object !== 'object' || object === null) {
    throw new BadResponseError(`watch event ${type} has no object`);
  }
  return parsed as WatchEvent<T>;
}
