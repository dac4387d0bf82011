// Runs first in every patch-sandbox isolate (src/patches/patch-sandbox.ts evaluates this file as a
// classic script; its completion value, the number of frozen objects, is ignored). It is plain
// ECMAScript: the isolate has no Node.js APIs and nothing of the host realm.
//
// Removes code generation from strings (`eval`, `Function` and the constructors of
// async/generator functions), `WebAssembly`, shared memory and GC observers, then freezes every
// intrinsic reachable from the global object (and the iterator prototypes reachable only through
// instances). Expressions run in strict mode, so an attempt to pollute a prototype or add a global
// throws instead of leaking into later evaluations.
(function lockdown() {
  'use strict';
  const refuse = function () {
    throw new EvalError('code generation from strings is disabled in patch expressions');
  };
  const functionPrototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ];
  for (const proto of functionPrototypes) {
    Object.defineProperty(proto, 'constructor', { value: refuse, writable: false, enumerable: false, configurable: false });
  }
  for (const name of ['eval', 'Function', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'FinalizationRegistry', 'WeakRef']) {
    delete globalThis[name];
  }
  // RegExp's legacy static properties ($1-$9, input, lastMatch, leftContext, …) are accessors to
  // the last match of any regex in the isolate: freezing keeps them updating, so one object's
  // expression could read what an earlier object's matched. Removed, as no expression needs them.
  for (const key of Reflect.ownKeys(RegExp)) {
    if (typeof key !== 'string' || !/^(\$[1-9_&+`']|input|lastMatch|lastParen|leftContext|rightContext)$/.test(key)) continue;
    if (!delete RegExp[key]) throw new Error('cannot remove RegExp.' + key);
  }
  const roots = [globalThis, refuse].concat(functionPrototypes, [
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(new Map()[Symbol.iterator]()),
    Object.getPrototypeOf(new Set()[Symbol.iterator]()),
    Object.getPrototypeOf(''[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
    Object.getPrototypeOf((function* () {})()),
    Object.getPrototypeOf((async function* () {})()),
  ]);
  if (typeof Intl === 'object' && typeof Intl.Segmenter === 'function') {
    const segments = new Intl.Segmenter().segment('');
    roots.push(Object.getPrototypeOf(segments), Object.getPrototypeOf(segments[Symbol.iterator]()));
  }
  const seen = new Set();
  while (roots.length > 0) {
    const item = roots.pop();
    if ((typeof item !== 'object' && typeof item !== 'function') || item === null || seen.has(item)) continue;
    seen.add(item);
    Object.freeze(item);
    roots.push(Object.getPrototypeOf(item));
    for (const key of Reflect.ownKeys(item)) {
      const descriptor = Object.getOwnPropertyDescriptor(item, key);
      if (descriptor === undefined) continue;
      if ('value' in descriptor) roots.push(descriptor.value);
      else roots.push(descriptor.get, descriptor.set);
    }
  }
  return seen.size;
})();
