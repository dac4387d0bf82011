import type { IncomingMessage } from 'node:http';
import { TransportError } from './kube-errors.js';
import type { KubeObject, WatchEvent } from './kube-object.js';
import { WatchLineDecoder, parseWatchEvent } from './watch-line-decoder.js';

/** An open watch: iterate it for events; it ends when the server closes the stream cleanly. */
export interface WatchStream<T extends KubeObject> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the connection; a pending iteration then ends. Idempotent. */
  close(): void;
}

/**
 * Wraps a 200 watch response: iterating yields its events line by line; the iteration ends when
 * the server ends the response, throws {@link TransportError} when the connection breaks and
 * `BadResponseError` on an unparsable line. Abort errors pass through unchanged.
 */
export function openWatchStream<T extends KubeObject>(response: IncomingMessage, path: string): WatchStream<T> {
  async function* events(): AsyncGenerator<WatchEvent<T>> {
    const decoder = new WatchLineDecoder();
    const chunks = response[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await chunks.next();
        } catch (err) {
          if ((err as { name?: unknown }).name === 'AbortError') throw err;
          throw new TransportError(`WATCH ${path}: connection lost`, err);
        }
        if (next.done === true) break;
        for (const line of decoder.push(next.value as Buffer)) yield parseWatchEvent<T>(line);
      }
      for (const line of decoder.end()) yield parseWatchEvent<T>(line);
    } finally {
      response.destroy();
    }
  }
  return {
    [Symbol.asyncIterator]: () => events(),
    close: () => {
      response.destroy();
    },
  };
}
