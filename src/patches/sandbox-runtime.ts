/**
 * JavaScript that runs inside the sandbox isolate. It is kept as source text because nothing of
 * the host realm may enter the isolate: the isolate receives code and JSON strings, and returns
 * JSON strings.
 *
 * Two scripts, run once per isolate, in this order:
 * 1. {@link SANDBOX_LOCKDOWN_SOURCE} removes code generation from strings (`eval`, `Function` and
 *    the constructors of async/generator functions), `WebAssembly`, shared memory and GC
 *    observers, then freezes every intrinsic reachable from the global object (and the iterator
 *    prototypes reachable only through instances). Expressions run in strict mode, so an attempt
 *    to pollute a prototype or add a global throws instead of leaking into later evaluations.
 * 2. {@link SANDBOX_RUNTIME_SOURCE} evaluates to `createProgram(factory, staticJson)`, which binds
 *    one compiled plan (its expression functions and path data) and returns
 *    `run(inputJson) -> outputJson`: one call per object, all patches inside.
 *
 * The runtime re-implements the path matching rules of `path-match.ts` (it cannot import host
 * code); the unit tests run the same table through both.
 */

export const SANDBOX_LOCKDOWN_SOURCE = String.raw`(function lockdown() {
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
})()`;

export const SANDBOX_RUNTIME_SOURCE = String.raw`(function runtime() {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const keysOf = Object.keys;
  const freeze = Object.freeze;
  const isFrozen = Object.isFrozen;
  const hasOwn = Object.hasOwn;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const objectPrototype = Object.prototype;
  const toText = String;
  const fromCharCode = String.fromCharCode;
  const floor = Math.floor;
  const MAX_DETAIL = 1000;

  // ---- base64 with browser semantics ----
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function invalidCharacter(message) {
    const error = new Error(message);
    defineProperty(error, 'name', { value: 'InvalidCharacterError' });
    return error;
  }
  const btoa = (...args) => {
    if (args.length === 0) throw new TypeError("btoa: 1 argument required, but only 0 present");
    const text = toText(args[0]);
    let out = '';
    for (let i = 0; i < text.length; i += 3) {
      const a = text.charCodeAt(i);
      const b = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      const c = i + 2 < text.length ? text.charCodeAt(i + 2) : -1;
      if (a > 255 || b > 255 || c > 255) {
        throw invalidCharacter('btoa: the string to be encoded contains characters outside of the Latin1 range');
      }
      const n = (a << 16) | ((b < 0 ? 0 : b) << 8) | (c < 0 ? 0 : c);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (b < 0 ? '=' : B64[(n >> 6) & 63]) + (c < 0 ? '=' : B64[n & 63]);
    }
    return out;
  };
  const atob = (...args) => {
    if (args.length === 0) throw new TypeError("atob: 1 argument required, but only 0 present");
    let text = toText(args[0]).replace(/[\t\n\f\r ]/g, '');
    if (text.length % 4 === 0) text = text.replace(/==?$/, '');
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
      throw invalidCharacter('atob: the string to be decoded is not correctly encoded');
    }
    let out = '';
    let buffer = 0;
    let bits = 0;
    for (let i = 0; i < text.length; i += 1) {
      buffer = ((buffer << 6) | B64.indexOf(text[i])) & 0xffffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((buffer >> bits) & 255);
      }
    }
    return out;
  };
  freeze(btoa);
  freeze(atob);

  // ---- SHA-256 (for safeConcatName, as the syncer's name translation) ----
  const PRIMES = [];
  for (let n = 2; PRIMES.length < 64; n += 1) {
    let prime = true;
    for (const p of PRIMES) if (n % p === 0) { prime = false; break; }
    if (prime) PRIMES.push(n);
  }
  const fraction32 = (x) => floor((x - floor(x)) * 4294967296) | 0;
  const K = PRIMES.map((p) => fraction32(Math.cbrt(p)));
  const H0 = PRIMES.slice(0, 8).map((p) => fraction32(Math.sqrt(p)));
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  function utf8(text) {
    const bytes = [];
    for (let i = 0; i < text.length; i += 1) {
      let c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i += 1; } else c = 0xfffd;
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return bytes;
  }
  function sha256Hex(text) {
    const bytes = utf8(text);
    const bitLength = bytes.length * 8;
    bytes.push(0x80);
    while (bytes.length % 64 !== 56) bytes.push(0);
    const high = floor(bitLength / 4294967296);
    const low = bitLength >>> 0;
    bytes.push((high >>> 24) & 255, (high >>> 16) & 255, (high >>> 8) & 255, high & 255);
    bytes.push((low >>> 24) & 255, (low >>> 16) & 255, (low >>> 8) & 255, low & 255);
    const h = H0.slice();
    const w = [];
    for (let offset = 0; offset < bytes.length; offset += 64) {
      for (let t = 0; t < 16; t += 1) {
        const o = offset + 4 * t;
        w[t] = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3];
      }
      for (let t = 16; t < 64; t += 1) {
        const x = w[t - 15];
        const y = w[t - 2];
        const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
        const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
      }
      let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
      for (let t = 0; t < 64; t += 1) {
        const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + hh) | 0;
    }
    return h.map((v) => (v >>> 0).toString(16).padStart(8, '0')).join('');
  }
  function safeConcatName(parts) {
    const full = parts.join('-');
    if (full.length <= 63) return full;
    return (full.slice(0, 52) + '-' + sha256Hex(full).slice(0, 10)).split('.-').join('-');
  }
  function makeVirtualToHostDNS(vclusterName, hostNamespace) {
    return (...args) => {
      const dns = toText(args[0]);
      const labels = dns.split('.');
      if (labels.length < 3 || labels[0] === '' || labels[1] === '' || labels[2] !== 'svc') return dns;
      const hostName = safeConcatName([labels[0], 'x', labels[1], 'x', vclusterName]);
      return [hostName, hostNamespace].concat(labels.slice(2)).join('.');
    };
  }

  // ---- JSON data helpers ----
  const isObject = (v) => typeof v === 'object' && v !== null && !isArray(v);
  function deepFreeze(value) {
    if (typeof value === 'object' && value !== null && !isFrozen(value)) {
      freeze(value);
      for (const key of keysOf(value)) deepFreeze(value[key]);
    }
    return value;
  }
  function same(a, b) {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (isArray(a) !== isArray(b)) return false;
    if (isArray(a)) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i += 1) if (!same(a[i], b[i])) return false;
      return true;
    }
    const ka = keysOf(a);
    if (ka.length !== keysOf(b).length) return false;
    for (const key of ka) if (!hasOwn(b, key) || !same(a[key], b[key])) return false;
    return true;
  }
  const copyOf = (value) => (typeof value === 'object' && value !== null ? parse(stringify(value)) : value);
  function setOwn(target, key, value) {
    defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  }

  class NotJson {
    constructor(detail) { this.detail = detail; }
  }
  // Copies a result into plain JSON data, rejecting what JSON cannot hold. Object members whose
  // value is undefined are dropped, as JSON.stringify does.
  function toJson(value, where, ancestors) {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (value !== value || value === Infinity || value === -Infinity) throw new NotJson(where + ' is ' + value + ', which JSON cannot represent');
        return value;
      case 'undefined':
        throw new NotJson(where + ' is undefined');
      case 'bigint':
        throw new NotJson(where + ' is a BigInt; convert it with String() or Number()');
      case 'symbol':
        throw new NotJson(where + ' is a symbol');
      case 'function':
        throw new NotJson(where + ' is a function');
    }
    if (value === null) return null;
    if (ancestors.includes(value)) throw new NotJson(where + ' refers back to itself (a cycle)');
    ancestors.push(value);
    let out;
    if (isArray(value)) {
      out = [];
      const length = value.length;
      for (let i = 0; i < length; i += 1) out.push(toJson(value[i], where + '[' + i + ']', ancestors));
    } else {
      const proto = getPrototypeOf(value);
      if (proto !== objectPrototype && proto !== null) {
        throw new NotJson(where + ' is not a plain object (a Date, Map, RegExp, class instance or similar); return plain data');
      }
      out = {};
      for (const key of keysOf(value)) {
        const item = value[key];
        if (item !== undefined) setOwn(out, key, toJson(item, where + '.' + key, ancestors));
      }
    }
    ancestors.pop();
    return out;
  }
  function describe(error) {
    try {
      if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
        const message = error.message;
        const name = error.name;
        if (typeof message === 'string') {
          return ((typeof name === 'string' && name !== '' ? name + ': ' : '') + message).slice(0, MAX_DETAIL);
        }
      }
      return ('threw ' + toText(error)).slice(0, MAX_DETAIL);
    } catch (ignored) {
      return 'threw a value that cannot be described';
    }
  }

  // ---- paths (same rules as path-match.ts) ----
  const PLAIN_KEY = /^[^.[\]\s"'*][^.[\]\s]*$/;
  function formatPath(steps) {
    let out = '';
    for (const step of steps) {
      if (typeof step === 'number') out += '[' + step + ']';
      else if (PLAIN_KEY.test(step)) out += out === '' ? step : '.' + step;
      else out += '["' + step.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"]';
    }
    return out;
  }
  // A location matches only when every segment exists there, the last one included.
  function match(root, segments) {
    const out = [];
    const walk = (node, depth, at) => {
      if (depth === segments.length) { out.push(at); return; }
      const segment = segments[depth];
      if (segment.kind === 'wildcard') {
        if (isArray(node)) { for (let i = 0; i < node.length; i += 1) walk(node[i], depth + 1, at.concat([i])); }
        else if (isObject(node)) { for (const key of keysOf(node)) walk(node[key], depth + 1, at.concat([key])); }
        return;
      }
      if (segment.kind === 'index') {
        if (isArray(node) && segment.index < node.length) walk(node[segment.index], depth + 1, at.concat([segment.index]));
        return;
      }
      if (isObject(node) && hasOwn(node, segment.key)) walk(node[segment.key], depth + 1, at.concat([segment.key]));
    };
    walk(root, 0, []);
    return out;
  }
  function getAt(root, at) {
    let node = root;
    for (const step of at) {
      if (typeof step === 'number') {
        if (!isArray(node) || step >= node.length) return { exists: false, value: undefined };
      } else if (!isObject(node) || !hasOwn(node, step)) {
        return { exists: false, value: undefined };
      }
      node = node[step];
    }
    return { exists: true, value: node };
  }
  function setAt(root, at, value) {
    let node = root;
    for (let depth = 0; depth < at.length - 1; depth += 1) {
      const step = at[depth];
      if (typeof step === 'number') {
        if (!isArray(node) || step >= node.length) return false;
      } else {
        if (!isObject(node)) return false;
        if (!hasOwn(node, step)) {
          if (typeof at[depth + 1] === 'number') return false;
          setOwn(node, step, {});
        }
      }
      node = node[step];
    }
    const leaf = at[at.length - 1];
    if (typeof leaf === 'number') {
      if (!isArray(node) || leaf >= node.length) return false;
      node[leaf] = value;
      return true;
    }
    if (!isObject(node)) return false;
    setOwn(node, leaf, value);
    return true;
  }
  const isProtected = (at) => at.length === 2 && at[0] === 'metadata' && (at[1] === 'name' || at[1] === 'namespace');
  function identityOf(object) {
    const metadata = isObject(object) && isObject(object.metadata) ? object.metadata : {};
    return stringify([metadata.name, metadata.namespace]);
  }

  class Failure {
    constructor(code, patch, field, objectPath, detail) {
      this.code = code;
      this.patchIndex = patch === undefined ? -1 : patch.index;
      this.field = field;
      this.objectPath = objectPath;
      this.detail = detail;
    }
  }

  return function createProgram(factory, staticJson) {
    const data = parse(staticJson);
    const vcluster = deepFreeze(data.vcluster);
    const functions = factory(atob, btoa, freeze(makeVirtualToHostDNS(toText(vcluster.name), toText(vcluster.namespace))));
    const patches = data.patches.map((patch, slot) => ({
      index: patch.index,
      path: patch.path,
      forwardField: patch.forwardField,
      reverseField: patch.reverseField,
      forward: functions[slot][0],
      reverse: functions[slot][1],
    }));

    // valueExists is always true: only locations that exist are matched. It stays a parameter so
    // expressions written for it keep working.
    function evaluate(fn, patch, field, objectPath, value, context) {
      let raw;
      try {
        raw = fn(value, true, context);
      } catch (error) {
        throw new Failure('PATCH_EVAL_THREW', patch, field, objectPath, describe(error));
      }
      if (raw === undefined || raw === null) return undefined;
      try {
        return toJson(raw, 'the result', []);
      } catch (error) {
        if (error instanceof NotJson) throw new Failure('PATCH_EVAL_RESULT_NOT_JSON', patch, field, objectPath, error.detail);
        throw new Failure('PATCH_EVAL_THREW', patch, field, objectPath, describe(error));
      }
    }

    function applyWrites(target, writes) {
      const removals = [];
      for (const write of writes) {
        if (!write.remove) { setAt(target, write.at, write.value); continue; }
        const parent = getAt(target, write.at.slice(0, -1)).value;
        const key = write.at[write.at.length - 1];
        if (isArray(parent)) removals.push({ parent, index: key });
        else if (isObject(parent)) delete parent[key];
      }
      removals.sort((a, b) => b.index - a.index);
      for (const removal of removals) removal.parent.splice(removal.index, 1);
    }

    function forward(input) {
      const target = input.object;
      const hostObject = deepFreeze(input.hostObject);
      const virtualObject = deepFreeze(input.virtualObject);
      const identity = identityOf(target);
      const applied = [];
      for (const patch of patches) {
        const writes = [];
        for (const at of match(target, patch.path)) {
          if (isProtected(at)) continue;
          const current = getAt(target, at).value;
          const path = formatPath(at);
          const context = freeze({ vcluster, hostObject, virtualObject, path });
          const result = evaluate(patch.forward, patch, patch.forwardField, path, copyOf(current), context);
          let outcome = 'unchanged';
          if (result === undefined) {
            writes.push({ at, remove: true });
            outcome = 'removed';
          } else if (!same(current, result)) {
            writes.push({ at, remove: false, value: result });
            outcome = 'set';
          }
          applied.push({ patchIndex: patch.index, path, outcome });
        }
        applyWrites(target, writes);
        if (identityOf(target) !== identity) {
          throw new Failure('PATCH_EVAL_PROTECTED_FIELD', patch, patch.forwardField, '',
            'the patch changed metadata.name or metadata.namespace, which only the syncer sets');
        }
      }
      return { ok: true, object: target, applied, skipped: [] };
    }

    function reverse(input) {
      const target = input.object;
      const hostObject = deepFreeze(input.hostObject);
      const virtualObject = deepFreeze(input.virtualObject);
      const lastSynced = input.lastSyncedHostObject === null ? null : deepFreeze(input.lastSyncedHostObject);
      const identity = identityOf(target);
      const applied = [];
      const skipped = [];
      for (const patch of patches) {
        if (patch.reverse === null) continue;
        for (const at of match(hostObject, patch.path)) {
          if (isProtected(at)) continue;
          const hostValue = getAt(hostObject, at).value;
          if (lastSynced !== null) {
            const previous = getAt(lastSynced, at);
            if (previous.exists && same(previous.value, hostValue)) continue;
          }
          const path = formatPath(at);
          const context = freeze({ vcluster, hostObject, virtualObject, path });
          const current = getAt(target, at);
          if (current.exists) {
            const forwarded = evaluate(patch.forward, patch, patch.forwardField, path, copyOf(current.value), context);
            if (forwarded !== undefined && same(forwarded, hostValue)) continue;
          }
          const candidate = evaluate(patch.reverse, patch, patch.reverseField, path, copyOf(hostValue), context);
          const roundTrip = candidate === undefined
            ? undefined
            : evaluate(patch.forward, patch, patch.forwardField, path, copyOf(candidate), context);
          if (roundTrip === undefined || !same(roundTrip, hostValue)) {
            skipped.push({ patchIndex: patch.index, path, reason: 'not-invertible' });
            continue;
          }
          if (!setAt(target, at, candidate)) {
            skipped.push({ patchIndex: patch.index, path, reason: 'parent-missing' });
            continue;
          }
          applied.push({ patchIndex: patch.index, path, outcome: 'set' });
        }
        if (identityOf(target) !== identity) {
          throw new Failure('PATCH_EVAL_PROTECTED_FIELD', patch, patch.reverseField, '',
            'the reverse patch changed metadata.name or metadata.namespace, which only the syncer sets');
        }
      }
      return { ok: true, object: target, applied, skipped };
    }

    return function run(inputJson) {
      try {
        const input = parse(inputJson);
        const output = input.mode === 'reverse' ? reverse(input) : forward(input);
        return stringify(output);
      } catch (error) {
        const failure = error instanceof Failure
          ? error
          : new Failure('PATCH_EVAL_THREW', undefined, '', '', describe(error));
        return stringify({ ok: false, code: failure.code, patchIndex: failure.patchIndex, field: failure.field,
          objectPath: failure.objectPath, detail: failure.detail });
      }
    };
  };
})()`;

/**
 * Builds the source of a plan's expression factory: a strict-mode function taking the helpers and
 * returning `[forward, reverse | null]` per expression patch. Each expression has already passed
 * `checkExpression`, which is what guarantees it is a single expression; the newlines around it
 * end any trailing line comment and keep it on its own lines.
 */
export function buildFactorySource(expressions: readonly { forward: string; reverse: string | undefined }[]): string {
  const wrap = (expression: string): string =>
    `function (value, valueExists, context) {\nreturn (\n${expression}\n);\n}`;
  const entries = expressions.map(
    (entry) => `[${wrap(entry.forward)}, ${entry.reverse === undefined ? 'null' : wrap(entry.reverse)}]`,
  );
  return `(function (atob, btoa, virtualToHostDNS) {\n'use strict';\nreturn [\n${entries.join(',\n')}\n];\n})`;
}
