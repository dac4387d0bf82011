import { readFileSync } from 'node:fs';

/**
 * The JavaScript that runs inside the sandbox isolate lives in real files next to this module,
 * `isolate/lockdown.js` and `isolate/runtime.js` (linted as classic scripts with ECMAScript
 * built-ins only; `npm run build` copies them into dist/). Nothing of the host realm may enter the
 * isolate: it receives code and JSON strings, and returns JSON strings.
 *
 * Two scripts, run once per isolate, in this order:
 * 1. lockdown.js removes code generation from strings, `WebAssembly`, shared memory and GC
 *    observers, and freezes every reachable intrinsic;
 * 2. runtime.js evaluates to `createProgram(factory, staticJson)`, which binds one compiled plan
 *    and returns `run(mode, inputJson) -> outputJson`.
 */
export interface SandboxSources {
  /** Source of isolate/lockdown.js. */
  readonly lockdown: string;
  /** Source of isolate/runtime.js. */
  readonly runtime: string;
}

let loaded: SandboxSources | undefined;

/**
 * Reads the isolate's scripts from disk once (at the first isolate) and keeps them. Throws an
 * error naming the missing file and the fix when the build did not copy them.
 */
export function sandboxSources(): SandboxSources {
  if (loaded !== undefined) return loaded;
  const read = (name: string): string => {
    const url = new URL(`./isolate/${name}`, import.meta.url);
    try {
      return readFileSync(url, 'utf8');
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`the patch sandbox runtime ${url.pathname} cannot be read (${reason}); build with \`npm run build\`, which copies src/patches/isolate/ into dist/`, { cause: error });
    }
  };
  loaded = Object.freeze({ lockdown: read('lockdown.js'), runtime: read('runtime.js') });
  return loaded;
}

/**
 * Builds the source of a plan's expression factory: a strict-mode function taking the helpers
 * (`atob`, `btoa`, `virtualToHostDNS`, in that order) and returning `[forward, reverse | null]` per
 * expression patch. Each expression has already passed `checkExpression`, which is what guarantees
 * it is a single expression; the newlines around it end any trailing line comment and keep it on
 * its own lines.
 *
 * Every evaluation must see the same environment (nothing one assigns may reach the next). The factory runs once per isolate,
 * so any binding in its scope outlives an evaluation: the helpers are `const` bindings, read from
 * `arguments` (no named parameter an expression could reassign), and the only other names an
 * expression sees are its own wrapper's parameters, fresh on every call. Assigning a helper throws
 * a TypeError; the intrinsics are frozen by lockdown.js.
 */
export function buildFactorySource(expressions: readonly { forward: string; reverse: string | undefined }[]): string {
  const wrap = (expression: string): string =>
    `function (value, valueExists, context) {\nreturn (\n${expression}\n);\n}`;
  const entries = expressions.map(
    (entry) => `[${wrap(entry.forward)}, ${entry.reverse === undefined ? 'null' : wrap(entry.reverse)}]`,
  );
  return `(function () {\n'use strict';\nconst atob = arguments[0], btoa = arguments[1], virtualToHostDNS = arguments[2];\nreturn [\n${entries.join(',\n')}\n];\n})`;
}
