// The patch runtime: evaluated in every patch-sandbox isolate after lockdown.js (by
// src/patches/patch-sandbox.ts, as a classic script). Its completion value is
// `createProgram(factory, staticJson)`, which binds one compiled plan (its expression functions,
// see buildFactorySource, and its path data) and returns `run(mode, inputJson) -> outputJson`.
// Only strings cross: nothing of the host realm enters the isolate.
//
// Forward (virtual -> host), the hot path: the host side matches the paths, compares and writes
// back; this file only evaluates expressions on the values it is sent, many objects per call.
// Reverse (host -> virtual): one whole object per call; it matches paths itself, with the rules
// of path-match.ts (it cannot import host code; the unit tests run one table through both).
//
// Plain ECMAScript: the isolate has no Node.js APIs (eslint lints this file with no globals but
// the built-ins).
(function runtime() {
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
  // The most characters (strings and keys) the results of one object may hold: 3 MiB, the
  // kube-apiserver's largest request body. Checked while copying, before JSON.stringify would
  // flatten a string built by repetition (256 MiB from "x".repeat(1 << 28) in microseconds) and
  // the host would copy and parse it outside the sandbox's time limit.
  const MAX_RESULT_CHARS = 3 * 1024 * 1024;

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
  // Copies a result into plain JSON data, rejecting what JSON cannot hold and what is larger than
  // `budget.left` characters (strings and keys; the budget is shared by the results of one object).
  // Object members whose value is undefined are dropped, as JSON.stringify does.
  function spend(budget, length, where) {
    budget.left -= length;
    if (budget.left < 0) throw new NotJson(where + ' is too large: the results for one object may hold at most ' + MAX_RESULT_CHARS + ' characters (strings and keys), more than a Kubernetes object can hold');
  }
  function toJson(value, where, ancestors, budget) {
    switch (typeof value) {
      case 'string':
        spend(budget, value.length, where);
        return value;
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
      spend(budget, length, where);
      for (let i = 0; i < length; i += 1) out.push(toJson(value[i], where + '[' + i + ']', ancestors, budget));
    } else {
      const proto = getPrototypeOf(value);
      if (proto !== objectPrototype && proto !== null) {
        throw new NotJson(where + ' is not a plain object (a Date, Map, RegExp, class instance or similar); return plain data');
      }
      out = {};
      for (const key of keysOf(value)) {
        spend(budget, key.length + 1, where);
        const item = value[key];
        if (item !== undefined) setOwn(out, key, toJson(item, where + '.' + key, ancestors, budget));
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
    } catch {
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
      oneWay: patch.oneWay === true,
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
        return toJson(raw, 'the result', [], { left: MAX_RESULT_CHARS });
      } catch (error) {
        if (error instanceof NotJson) throw new Failure('PATCH_EVAL_RESULT_NOT_JSON', patch, field, objectPath, error.detail);
        throw new Failure('PATCH_EVAL_THREW', patch, field, objectPath, describe(error));
      }
    }


    // One object of a forward batch: `[hostObject, virtualObject, slot, path, value, slot, path,
    // value, ...]`, one triple per location the host side matched (it matches, compares and writes;
    // only values cross). Answers `[1, result, ...]` (one result per location, null to remove it) or
    // `[0, code, location, detail]` for the first location that failed.
    function forwardItem(item) {
      const hostObject = deepFreeze(item[0]);
      const virtualObject = deepFreeze(item[1]);
      const out = [1];
      const budget = { left: MAX_RESULT_CHARS };
      let context = null;
      for (let i = 2, location = 0; i < item.length; i += 3, location += 1) {
        // Called as a plain function, so `this` is undefined (strict mode), never the patch record.
        const expression = patches[item[i]].forward;
        // Paths are sent only when an expression reads them; else every location shares one context.
        if (context === null || context.path !== item[i + 1]) {
          context = freeze({ vcluster, hostObject, virtualObject, path: item[i + 1] });
        }
        let raw;
        try {
          raw = expression(item[i + 2], true, context);
        } catch (error) {
          return [0, 'PATCH_EVAL_THREW', location, describe(error)];
        }
        if (raw === undefined || raw === null) {
          out.push(null);
          continue;
        }
        try {
          out.push(toJson(raw, 'the result', [], budget));
        } catch (error) {
          return error instanceof NotJson
            ? [0, 'PATCH_EVAL_RESULT_NOT_JSON', location, error.detail]
            : [0, 'PATCH_EVAL_THREW', location, describe(error)];
        }
      }
      return out;
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
          if (patch.oneWay) {
            // A reverse-only patch is a one-way host → virtual transform: no forward expression to
            // round-trip through. Writing it again onto its own result changes nothing.
            const transformed = evaluate(patch.reverse, patch, patch.reverseField, path, copyOf(hostValue), context);
            if (transformed === undefined) {
              skipped.push({ patchIndex: patch.index, path, reason: 'no-value' });
              continue;
            }
            if (current.exists && same(current.value, transformed)) continue;
            if (!setAt(target, at, transformed)) {
              skipped.push({ patchIndex: patch.index, path, reason: 'parent-missing' });
              continue;
            }
            applied.push({ patchIndex: patch.index, path, outcome: 'set' });
            continue;
          }
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


    // `forward`: a JSON array of objects (see forwardItem), answered item by item, so one failing
    // object does not fail its neighbours. `reverse`: one whole object (see reverse).
    return function run(mode, inputJson) {
      if (mode === 'forward') {
        const items = parse(inputJson);
        const answers = [];
        for (const item of items) {
          try {
            answers.push(forwardItem(item));
          } catch (error) {
            answers.push([0, 'PATCH_EVAL_THREW', -1, describe(error)]);
          }
        }
        return stringify(answers);
      }
      try {
        return stringify(reverse(parse(inputJson)));
      } catch (error) {
        const failure = error instanceof Failure
          ? error
          : new Failure('PATCH_EVAL_THREW', undefined, '', '', describe(error));
        return stringify({ ok: false, code: failure.code, patchIndex: failure.patchIndex, field: failure.field,
          objectPath: failure.objectPath, detail: failure.detail });
      }
    };
  };
})();
