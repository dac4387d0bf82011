import type { KubeList, KubeObject, WatchEvent } from '../../../src/kube/kube-object.js';
import type { ListerWatcher } from '../../../src/kube/reflector.js';
import type { ListOptions, WatchOptions } from '../../../src/kube/rest-client.js';
import type { WatchStream } from '../../../src/kube/watch-stream.js';

/** A watch stream the test drives: push events, end it cleanly, or break it. */
export class FakeWatch implements WatchStream<KubeObject> {
  readonly options: WatchOptions;
  #events: Array<WatchEvent<KubeObject>> = [];
  #ended = false;
  #error: unknown;
  #wake: (() => void) | undefined;
  closed = false;

  constructor(options: WatchOptions) {
    this.options = options;
  }

  push(event: WatchEvent<KubeObject>): void {
    this.#events.push(event);
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  fail(err: unknown): void {
    this.#error = err;
    this.#notify();
  }

  close(): void {
    this.closed = true;
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<KubeObject>> {
    for (;;) {
      const next = this.#events.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#ended || this.closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** Answers lists from a script (pages or errors) and opens {@link FakeWatch}es on demand. */
export class FakeListerWatcher implements ListerWatcher {
  readonly listCalls: ListOptions[] = [];
  readonly watches: FakeWatch[] = [];
  /** What the next list calls answer, in order; when empty, `defaultList` answers. */
  listScript: Array<KubeList<KubeObject> | Error> = [];
  defaultList: KubeList<KubeObject> = { items: [], metadata: { resourceVersion: '1' } };
  /** Errors the next watch calls reject with, in order; when empty, a new FakeWatch opens. */
  watchErrors: unknown[] = [];
  watchAttempts = 0;

  async list<T extends KubeObject>(_path: string, options: ListOptions = {}): Promise<KubeList<T>> {
    this.listCalls.push(options);
    const next = this.listScript.shift() ?? this.defaultList;
    if (next instanceof Error) throw next;
    return next as KubeList<T>;
  }

  async watch<T extends KubeObject>(_path: string, options: WatchOptions = {}): Promise<WatchStream<T>> {
    this.watchAttempts += 1;
    const error = this.watchErrors.shift();
    if (error !== undefined) throw error;
    const stream = new FakeWatch(options);
    this.watches.push(stream);
    return stream as unknown as WatchStream<T>;
  }

  get lastWatch(): FakeWatch {
    const last = this.watches[this.watches.length - 1];
    if (last === undefined) throw new Error('no watch opened yet');
    return last;
  }
}
