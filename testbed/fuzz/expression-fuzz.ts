import {
  applyPatches,
  compilePatches,
  PatchErrorCode,
  PatchEvaluationErrorCode,
  PatchSandbox,
  type PatchEnvironment,
  type PatchPlan,
  type PatchableObject,
} from '#vcsync/patches/index.js';
import { SeededRandom } from '../seeded-random.js';

/**
 * Expression fuzzing: hostile and randomly generated patch expressions through
 * `compilePatches` and the real isolated-vm sandbox. Each expression compiles or is rejected with
 * a located error; each evaluation ends within the sandbox's time and memory limits with an answer
 * or a patch evaluation error (never "sandbox unavailable"); after each one a known-good
 * expression still gives the right answer and sees the isolate as a fresh one sees it; the main
 * process' globals stay as they were. Shared by the test (test/unit/patches/expression-fuzz.test.ts)
 * and the longer run (benchmarks/fuzz.mjs). The same seed yields the same expressions.
 */

/** One expression to try and how it was made (for the failure message). */
export interface ExpressionCase {
  readonly index: number;
  /** `hostile:<name>` for the fixed escape attempts, `grammar` or `grammar:mutated` for generated ones. */
  readonly recipe: string;
  readonly expression: string;
}

/** What a fuzz run did: counts by outcome, and every problem found (empty when all is well). */
export interface ExpressionFuzzReport {
  readonly seed: number;
  readonly tried: number;
  /** Rejected by compilePatches with a located error. */
  readonly rejected: number;
  /** Compiled and evaluated to a value. */
  readonly evaluated: number;
  /** Compiled and failed at run time, by patch evaluation error code. */
  readonly failedAtRun: Readonly<Record<string, number>>;
  /** Longest single evaluation, in ms. */
  readonly slowestMs: number;
  /** Isolates the sandbox replaced (memory limit). */
  readonly replacements: number;
  readonly problems: readonly string[];
}

/** Options of {@link runExpressionFuzz}. */
export interface ExpressionFuzzOptions {
  readonly seed: number;
  /** How many expressions: the hostile ones first, then generated ones. */
  readonly count: number;
  /** The sandbox's time limit per crossing. Default 250 ms. */
  readonly timeoutMs?: number;
  /** The sandbox's heap limit. Default 16 MiB. */
  readonly memoryLimitMiB?: number;
  /**
   * What one evaluation may take beyond twice the time limit (a timed-out batch is re-run object
   * by object) before it counts as a hang: a replaced isolate's setup, a loaded machine. Default 10 s.
   */
  readonly slackMs?: number;
  /** Called after each case (progress of long runs). */
  readonly onCase?: (done: number) => void;
}

/**
 * Escape attempts and resource attacks, each a single expression. They reach for the host
 * (prototype chains, Function constructors, import(), host globals), leave work behind (async
 * tricks, un-awaited promises), hide work in the result (getters, Proxy, toPrimitive, toJSON),
 * throw what is not an Error, or exhaust time, memory and stack.
 */
export const HOSTILE_EXPRESSIONS: readonly (readonly [string, string])[] = [
  ['constructor-constructor', 'value.constructor.constructor("return globalThis")()'],
  ['function-constructor', '(() => {}).constructor("return this")()'],
  ['async-function-constructor', 'Object.getPrototypeOf(async function () {}).constructor("return 1")'],
  ['generator-constructor', 'Object.getPrototypeOf(function* () {}).constructor("yield 1")'],
  ['async-generator-constructor', 'Object.getPrototypeOf(async function* () {}).constructor("yield 1")'],
  ['eval', 'eval("1 + 1")'],
  ['indirect-eval', '(0, globalThis["ev" + "al"])("1")'],
  ['Function-global', 'Function("return process")()'],
  ['import', 'import("node:fs")'],
  ['import-meta', 'import.meta'],
  ['require', 'require("child_process")'],
  ['process', 'process.env'],
  ['globalThis-process', 'globalThis.process ?? globalThis.require ?? globalThis.module ?? "none"'],
  ['global-names', 'Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|require|Buffer|ivm|_ivm|isolatedVm|setTimeout|setInterval|queueMicrotask|fetch|WebAssembly|SharedArrayBuffer|Atomics|eval|Function)$/.test(n))'],
  ['arguments-callee', '(function () { return arguments.callee.caller })()'],
  ['function-caller', '(function f() { return f.caller })()'],
  ['this', 'this'],
  ['stack-trace-api', '(() => { Error.prepareStackTrace = (e, s) => s; return new Error().stack })()'],
  ['capture-stack', '(() => { const o = {}; Error.captureStackTrace(o); return o.stack })()'],
  ['proto-pollution', '(value.__proto__.polluted = "yes")'],
  ['object-prototype-define', 'Object.defineProperty(Object.prototype, "polluted", { value: 1 })'],
  ['array-prototype-assign', '(Array.prototype.map = () => "hijacked")'],
  ['json-hijack', '(JSON.stringify = () => "hijacked")'],
  ['json-parse-hijack', 'Object.assign(JSON, { parse: () => ({}) })'],
  ['string-prototype-replace', '(String.prototype.toLowerCase = () => "hijacked")'],
  ['regexp-prototype-exec', '(RegExp.prototype.exec = () => null)'],
  ['symbol-iterator-hijack', '(Array.prototype[Symbol.iterator] = function* () { yield "hijacked" })'],
  ['promise-then-hijack', '(Promise.prototype.then = () => "hijacked")'],
  ['global-assign', '(globalThis.leak = value)'],
  ['global-define', 'Object.defineProperty(globalThis, "leak", { value: 1 })'],
  ['delete-intrinsic', 'delete globalThis.JSON'],
  ['freeze-global-object', 'Object.preventExtensions(Object.prototype)'],
  ['helper-mutation', '(atob.leak = 1)'],
  // State across evaluations: what one evaluation assigns must not reach the next.
  // The check refuses a visible assignment to a helper; a parameter of the same name elsewhere
  // in the expression hides it from the check, and the sandbox's const helpers refuse it then.
  ['helper-reassign', '(typeof btoa === "function" ? (btoa = value, "first") : ("LEAKED:" + btoa))'],
  ['helper-reassign-dns', '(virtualToHostDNS = (x) => "attacker.example.com", value)'],
  ['helper-reassign-shadowed', '(((btoa) => 0)(0), (() => { try { btoa = value } catch { } return typeof btoa === "function" ? "fresh" : "LEAKED:" + btoa })())'],
  ['helper-reassign-dns-shadowed', '(((virtualToHostDNS) => 0)(0), (virtualToHostDNS = () => "attacker.example.com", value))'],
  ['global-this-reassign', '(((globalThis) => 0)(0), (globalThis = { leak: value }, value))'],
  ['symbol-registry-carry', '(Symbol.for("vcsync-carry-" + value), Symbol.keyFor(Symbol.for("vcsync-carry-n0")) ?? "none")'],
  ['helper-prototype', '(virtualToHostDNS.prototype = 1)'],
  ['context-mutation', '(context.vcluster.name = "evil")'],
  ['context-host-mutation', '(context.hostObject.metadata.name = "evil")'],
  ['context-replace', '(context.path = "evil")'],
  ['value-mutation-return', '(typeof value === "object" && value !== null ? Object.assign(value, { extra: 1 }) : value)'],
  ['weakref', 'new WeakRef({})'],
  ['finalization', 'new FinalizationRegistry(() => {})'],
  ['shared-array-buffer', 'new SharedArrayBuffer(8)'],
  ['wasm', 'WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))'],
  ['atomics-wait', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1e9)'],
  ['promise-loop', '(Promise.resolve().then(() => { for (;;) {} }), value)'],
  ['promise-chain-flood', '((p) => { for (let i = 0; i < 1e6; i++) p = p.then(() => i); return value })(Promise.resolve())'],
  ['async-await-loop', '(async () => { await null; for (;;) {} })() && value'],
  ['unawaited-rejection', '(Promise.reject(new Error("later")), value)'],
  ['async-result', '(async () => value)()'],
  ['thenable-result', '({ then(resolve) { resolve(1) } })'],
  ['generator-result', '(function* () { yield 1 })()'],
  ['getter-result', '({ get a() { for (;;) {} } })'],
  ['getter-throws', '({ get a() { throw new Error("getter") } })'],
  ['getter-huge', '({ get a() { return "x".repeat(1 << 20) } })'],
  ['setter-result', '({ set a(v) {} })'],
  ['proxy-result', 'new Proxy({}, { ownKeys() { for (;;) {} } })'],
  ['proxy-throws', 'new Proxy({ a: 1 }, { get() { throw new Error("trap") } })'],
  ['proxy-prototype-lie', 'new Proxy({ a: 1 }, { getPrototypeOf() { return Object.prototype } })'],
  ['proxy-array', 'new Proxy([1, 2], { get(t, k) { return k === "length" ? 1e9 : t[k] } })'],
  ['proxy-revoked', '(() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy })()'],
  ['to-primitive-loop', '({ [Symbol.toPrimitive]() { for (;;) {} } }) + ""'],
  ['to-primitive-result', '({ [Symbol.toPrimitive]() { return "p" } })'],
  ['to-json', '({ toJSON() { return "hijacked" } })'],
  ['value-of-trap', '({ valueOf() { throw new Error("valueOf") } }) * 1'],
  ['to-string-trap', '`${{ toString() { for (;;) {} } }}`'],
  ['date-result', 'new Date(0)'],
  ['map-result', 'new Map([[1, 2]])'],
  ['class-instance', 'new (class { constructor() { this.a = 1 } })()'],
  ['null-prototype', 'Object.assign(Object.create(null), { a: 1 })'],
  ['cycle', '((o) => (o.self = o))({})'],
  ['bigint', '10n ** 100n'],
  ['symbol', 'Symbol("s")'],
  ['function-result', '() => 1'],
  ['nan', '0 / 0'],
  ['infinity', '1 / 0'],
  ['negative-zero', '-0'],
  ['undefined-result', 'undefined'],
  ['sparse-array', '[1, , 3]'],
  ['array-holes-huge', 'Object.assign([], { length: 1e6 })'],
  ['throw-string', '(() => { throw "a string" })()'],
  ['throw-undefined', '(() => { throw undefined })()'],
  ['throw-symbol', '(() => { throw Symbol("s") })()'],
  ['throw-object', '(() => { throw { message: { nested: true } } })()'],
  ['throw-proxy', '(() => { throw new Proxy({}, { get() { for (;;) {} } }) })()'],
  ['throw-getter-message', '(() => { throw { get message() { throw new Error("inner") } } })()'],
  ['throw-huge-message', '(() => { throw new Error("m".repeat(1 << 22)) })()'],
  ['throw-null-prototype', '(() => { throw Object.create(null) })()'],
  ['throw-function', '(() => { throw () => 1 })()'],
  ['throw-to-string-loop', '(() => { throw { toString() { for (;;) {} } } })()'],
  ['error-name-getter', '(() => { const e = new Error("x"); Object.defineProperty(e, "name", { get() { for (;;) {} } }); throw e })()'],
  ['huge-string', '"x".repeat(1 << 28)'],
  ['heap-filling', '((a) => { for (;;) a.push({ filler: [1, 2, 3, 4, 5, 6, 7, 8] }) })([])'],
  ['typed-array', 'new Float64Array(1e9)'],
  ['array-buffer', 'new ArrayBuffer(2 ** 31)'],
  ['big-result', 'Array.from({ length: 2e5 }, (_, i) => "item-" + i)'],
  ['string-result-4mb', '"y".repeat(1 << 22)'],
  ['deep-result-arrays', '(() => { let v = 1; for (let i = 0; i < 1e5; i++) v = [v]; return v })()'],
  ['deep-result-objects', '(() => { let v = 1; for (let i = 0; i < 3000; i++) v = { a: v }; return v })()'],
  ['deep-recursion', '(function f(n) { return f(n + 1) + 1 })(0)'],
  ['mutual-recursion', '((f) => f(f))((g) => g(g))'],
  ['infinite-loop', '(() => { for (;;) {} })()'],
  ['while-true', '(() => { while (true) {} })()'],
  ['busy-date', '(() => { const end = Date.now() + 1e7; while (Date.now() < end) {} })()'],
  ['regex-backtracking', '/^(a+)+$/.test("a".repeat(40) + "!")'],
  ['regex-nested-quantifier', '/(x+x+)+y/.test("x".repeat(5000))'],
  ['regex-backreference', '/^(\\w+\\s?)*$/.test("a ".repeat(30) + "!")'],
  ['regex-huge-replace', '"a".repeat(1 << 20).replace(/a/g, "bb")'],
  ['regex-statics', '(/(secret-[a-z]+)/.exec("x secret-abc y"), value)'],
  ['regex-statics-read', '[RegExp.$1, RegExp.lastMatch, RegExp.input].join("|")'],
  ['json-deep-parse', 'JSON.parse("[".repeat(1e6) + "]".repeat(1e6))'],
  ['json-stringify-cycle', '((o) => JSON.stringify((o.o = o)))({})'],
  ['intl', 'new Intl.DateTimeFormat("en", { timeZone: "UTC" }).format(0)'],
  ['locale-compare', '"a".localeCompare("b", "de")'],
  ['string-normalize', '"\\u00e9".normalize("NFD").repeat(100)'],
  ['atob-huge', 'atob("QUFB".repeat(1 << 20))'],
  ['btoa-invalid', 'btoa("\\u2603")'],
  ['dns-huge', 'virtualToHostDNS("a".repeat(1 << 20) + ".b.svc.cluster.local")'],
  ['optional-call-chain', 'value?.constructor?.prototype?.__proto__?.constructor?.("x")'],
  ['with-in-strict', '(function () { with ({}) {} })()'],
  ['octal-in-strict', '010'],
  ['html-comment', 'value <!-- ); globalThis.x = 1; (\n'],
  ['html-close-comment', 'value\n--> ); (globalThis.x = 1\n'],
  ['close-paren-escape', 'value); (globalThis.x = 1'],
  ['close-function-escape', 'value\n);\n}, function () {\nreturn (globalThis.x = 1'],
  ['trailing-comment', 'value // ); globalThis.x = 1'],
  ['unterminated-comment', 'value /* ); globalThis.x = 1'],
  ['template-escape', '`${value}` + `\\u{1F4A5}`'],
  ['line-separator', '"a\u2028b" + value'],
  ['statement', 'globalThis.x = 1; value'],
  ['declaration', 'let x = 1'],
  ['empty', ''],
  ['whitespace', '  \n\t '],
  ['await-top', 'await value'],
  ['yield-top', 'yield value'],
  ['super', 'super.x'],
  ['new-target', 'new.target'],
  ['label', 'x: value'],
  ['hashbang', '#!/bin/sh\nvalue'],
  ['private-name', '#x in value'],
  ['class-expression', 'class { static { globalThis.x = 1 } }'],
  ['class-static-block', 'new (class { static { this.x = 1 } })()'],
  ['nul-char', 'value + "\\u0000"'],
  ['lone-surrogate', '"\\ud800" + value'],
  ['huge-source', `[${'1,'.repeat(20000)}1].length`],
  ['deep-source', `${'('.repeat(3000)}value${')'.repeat(3000)}`],
  ['deep-source-arrays', `${'['.repeat(3000)}value${']'.repeat(3000)}`],
];

/**
 * Expressions that held the whole process when crossings ran on the main thread (found by this
 * fuzzer; docs/limits.md): a builtin that walks or allocates 10^8 array elements at once runs
 * without reaching a point where V8 checks the time limit, or hits V8's fatal out-of-memory path,
 * where isolated-vm parks the calling thread for good; so, now and then, does an expression that
 * reaches the heap limit through one growing large allocation (an object grown key by key, an
 * array grown by push, a string doubled, the symbol registry flooded). Since evaluation moved to
 * worker processes (ADR 0034) each costs a killed worker instead:
 * test/integration/security/expression-blocking.test.ts runs every one of them. The fuzzer still
 * leaves them out (each costs a worker and about a second of its setup).
 */
export const BLOCKING_EXPRESSIONS: readonly string[] = [
  '((a) => { for (;;) a.push(a.length) })([])',
  '((s) => { for (;;) s += s })("x")',
  '(() => { for (let i = 0; ; i++) Symbol.for("s" + i) })()',
  '((o) => { for (let i = 0; ; i++) o["k" + i] = i })({})',
  'new Array(1e8).fill(0)',
  'Array.prototype.fill.call({ length: 1e8 }, 0)',
  'new Array(1e8).map((x) => x)',
  'new Array(1e8).slice()',
  'new Array(1e8).reverse()',
  'new Array(1e8).sort()',
];

const IDENTIFIERS = ['value', 'valueExists', 'context', 'atob', 'btoa', 'virtualToHostDNS', 'globalThis', 'Object', 'Array', 'JSON', 'Math', 'String', 'Number', 'RegExp', 'Symbol', 'Promise', 'Proxy', 'Reflect', 'Date', 'Error', 'undefined', 'NaN', 'Infinity', 'arguments', 'this', 'unknownName'];
const PROPERTIES = ['length', 'name', 'metadata', 'labels', 'annotations', 'path', 'vcluster', 'hostObject', 'virtualObject', 'constructor', 'prototype', '__proto__', 'toString', 'valueOf', 'toJSON', 'then', 'caller', 'callee', 'apply', 'call', 'bind', 'map', 'filter', 'join', 'split', 'replace', 'slice', 'repeat', 'keys', 'entries', 'assign', 'freeze', 'defineProperty', 'getPrototypeOf', 'stringify', 'parse', 'fromCharCode', '0', '1', '$1'];
const STRINGS = ['""', '"x"', '"-suffix"', '"a.b.svc"', '"web.default.svc.cluster.local"', '"QUFB"', '"\\u00e9"', '"constructor"', '"__proto__"', "'single'", '"\\n"'];
const BINARY = ['+', '-', '*', '/', '%', '**', '==', '===', '!=', '!==', '<', '<=', '>', '>=', '&&', '||', '??', '&', '|', '^', '<<', '>>', '>>>', 'in', 'instanceof', ','];
const UNARY = ['!', '-', '+', '~', 'typeof ', 'void ', 'delete '];

/** A random expression of the patch expression language (JavaScript expressions over value and context), `depth` levels deep at most. */
export function grammarExpression(random: SeededRandom, depth = 0): string {
  if (depth > 4 || random.chance(0.25)) return atom(random);
  const sub = (): string => grammarExpression(random, depth + 1);
  switch (random.int(16)) {
    case 0:
      return `${sub()} ${random.pick(BINARY)} ${sub()}`;
    case 1:
      return `${random.pick(UNARY)}${sub()}`;
    case 2:
      return `${sub()} ? ${sub()} : ${sub()}`;
    case 3:
      return `(${sub()})${random.chance(0.5) ? '?.' : '.'}${random.pick(PROPERTIES)}`;
    case 4:
      return `(${sub()})[${sub()}]`;
    case 5:
      return `(${sub()})${random.chance(0.3) ? '?.' : ''}(${Array.from({ length: random.int(3) }, sub).join(', ')})`;
    case 6:
      return `[${Array.from({ length: random.int(4) }, () => (random.chance(0.2) ? `...${sub()}` : sub())).join(', ')}]`;
    case 7:
      return `({ ${Array.from({ length: random.int(4) }, () => objectMember(random, sub)).join(', ')} })`;
    case 8:
      return `((${random.pick(['x', 'v', 'value', '...rest', 'x = 1', '{ a }', '[b]'])}) => ${sub()})(${sub()})`;
    case 9:
      return `\`${random.pick(['', 'a', '${'])}\${${sub()}}${random.pick(['', '-b'])}\``;
    case 10:
      return `new ${random.pick(['Array', 'Map', 'Set', 'Date', 'Error', 'Proxy', 'RegExp', 'Object', 'Promise', 'WeakMap', 'Uint8Array', 'ArrayBuffer'])}(${Array.from({ length: random.int(3) }, sub).join(', ')})`;
    case 11:
      return `${random.pick(['String', 'Number', 'Boolean', 'JSON.stringify', 'JSON.parse', 'Object.keys', 'Object.entries', 'Object.freeze', 'Array.from', 'Array.isArray', 'Math.max', 'Reflect.ownKeys', 'atob', 'btoa', 'virtualToHostDNS', 'Promise.resolve', 'Symbol.for'])}(${sub()})`;
    case 12:
      return `(${sub()}).${random.pick(['map', 'filter', 'replace', 'split', 'join', 'concat', 'repeat', 'padStart', 'at', 'flat', 'sort'])}(${random.chance(0.5) ? `(x) => ${sub()}` : sub()})`;
    case 13:
      return `(async () => ${sub()})()`;
    case 14:
      return `${sub()} ${random.pick(['=', '+=', '??=', '||='])} ${sub()}`;
    default:
      return `(${sub()}, ${sub()})`;
  }
}

function objectMember(random: SeededRandom, sub: () => string): string {
  switch (random.int(6)) {
    case 0:
      return `get ${random.pick(['a', 'length', 'then', 'toJSON'])}() { return ${sub()} }`;
    case 1:
      return `...${sub()}`;
    case 2:
      return `[${sub()}]: ${sub()}`;
    case 3:
      return `[Symbol.${random.pick(['toPrimitive', 'iterator', 'toStringTag'])}]() { return ${sub()} }`;
    default:
      return `${random.pick(['a', 'b', '__proto__', 'constructor', 'toJSON', 'valueOf', '"x-y"', '0'])}: ${sub()}`;
  }
}

function atom(random: SeededRandom): string {
  switch (random.int(9)) {
    case 0:
    case 1:
      return 'value';
    case 2:
      return random.pick(IDENTIFIERS);
    case 3:
      return random.pick(STRINGS);
    case 4:
      return String(random.pick([0, 1, -1, 42, 1.5, 1e21, 2 ** 53, 0.1]));
    case 5:
      return random.pick(['null', 'true', 'false', '[]', '({})', '10n']);
    case 6:
      return `context.${random.pick(['path', 'vcluster.name', 'vcluster.namespace', 'vcluster.config', 'hostObject?.metadata?.name', 'virtualObject?.metadata?.labels'])}`;
    case 7:
      return random.pick(['/a+/g', '/(\\d+)\\.(\\d+)/', '/^x/i', '/[/', '/(a+)+$/']);
    default:
      return `${random.pick(['value', 'context', 'globalThis', 'Object'])}.${random.pick(PROPERTIES)}`;
  }
}

/** A generated expression with random characters inserted, deleted or repeated (mostly syntax errors). */
function mutated(random: SeededRandom, text: string): string {
  let out = text;
  const edits = 1 + random.int(3);
  for (let edit = 0; edit < edits; edit += 1) {
    const at = random.int(out.length + 1);
    switch (random.int(4)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + 1 + random.int(4));
        break;
      case 1:
        out = out.slice(0, at) + random.pick(['(', ')', '[', ']', '{', '}', ';', ',', '`', '"', "'", '/', '\\', '=>', '?.', '...', '\n', '\u2028', '/*', '//', '<!--', '-->', '#', '@', 'await ', 'yield ', 'import(', 'function ', 'return ']) + out.slice(at);
        break;
      case 2:
        out = out.slice(0, at) + out.slice(at, at + 8).repeat(2 + random.int(3)) + out.slice(at + 8);
        break;
      default:
        out = out.slice(at) + out.slice(0, at);
    }
  }
  return out;
}

/** `count` expressions from `seed`: the hostile list first (as far as `count` goes), then generated ones, a third of them mutated. */
export function expressionCases(seed: number, count: number): ExpressionCase[] {
  const random = new SeededRandom(seed);
  const cases: ExpressionCase[] = [];
  for (let index = 0; index < count; index += 1) {
    const hostile = HOSTILE_EXPRESSIONS[index];
    if (hostile !== undefined) {
      cases.push({ index, recipe: `hostile:${hostile[0]}`, expression: hostile[1] });
      continue;
    }
    const generated = grammarExpression(random);
    cases.push(random.chance(0.3) ? { index, recipe: 'grammar:mutated', expression: mutated(random, generated) } : { index, recipe: 'grammar', expression: generated });
  }
  return cases;
}

const CONFIG_PATH = 'sync.toHost.endpoints.patches';
const VCLUSTER = { name: 'vc1', namespace: 'vcluster-vc1', config: {} };
/** Paths an expression is tried at: a map value, an array of values, a whole subtree. */
const PATHS = ['metadata.annotations["example.com/a"]', 'subsets[*].addresses[*].ip', 'metadata.labels[*]', 'subsets'];

/**
 * The known-good expression: the value with a suffix, and a fingerprint of what an expression
 * can observe of the isolate (the helpers and what they answer, global names, frozen intrinsics,
 * RegExp's legacy static properties): the state an evaluation could carry into the next. Run on
 * a fresh isolate first; after any expression it must answer the same.
 */
export const FINGERPRINT_EXPRESSION = [
  'JSON.stringify({',
  '  value: value + "-ok",',
  '  helpers: [typeof atob, typeof btoa, typeof virtualToHostDNS, btoa("ok"), atob("b2s="), virtualToHostDNS("web.default.svc")],',
  '  globals: Object.getOwnPropertyNames(globalThis).sort(),',
  '  frozen: [globalThis, Object, Object.prototype, Array.prototype, Object.getPrototypeOf(() => 0), String.prototype, RegExp, RegExp.prototype, Promise.prototype, JSON, Math, Error, Symbol]',
  '    .map((o) => Object.isFrozen(o)),',
  '  regexp: ["$1", "$9", "input", "lastMatch", "lastParen", "leftContext", "rightContext"].map((k) => String(RegExp[k])),',
  '  pollution: [({}).polluted, [].leak, "".leak, globalThis.leak, globalThis.x].map(String),',
  '})',
].join('\n');

/** Where a case's own plan carries the fingerprint (a key no case path reaches). */
const FINGERPRINT_PATH = 'metadata.annotations["example.com/fingerprint"]';

/** The host object an expression patches: an Endpoints as the syncer translates it. */
function endpoints(annotation: string): PatchableObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1', labels: { app: 'web', tier: 'front' }, annotations: { 'example.com/a': annotation, 'example.com/fingerprint': `${annotation}-own` } },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80, name: 'http' }] }],
  };
}

/** An object that none of the case paths matches: only the fingerprint of a case's plan runs on it. */
function bareEndpoints(annotation: string): PatchableObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1', annotations: { 'example.com/fingerprint': annotation } } };
}

/** Every property name of the main realm's global object and of the intrinsics a pollution would reach. */
function hostGlobals(): string {
  const names = (value: object): string[] => Reflect.ownKeys(value).map(String).sort();
  return JSON.stringify({
    global: names(globalThis),
    object: names(Object.prototype),
    array: names(Array.prototype),
    string: names(String.prototype),
    func: names(Function.prototype),
    json: names(JSON),
  });
}

const RUN_OUTCOMES = new Set<string>([
  PatchEvaluationErrorCode.TIMEOUT,
  PatchEvaluationErrorCode.MEMORY_LIMIT,
  PatchEvaluationErrorCode.THREW,
  PatchEvaluationErrorCode.RESULT_NOT_JSON,
  PatchEvaluationErrorCode.PROTECTED_FIELD,
]);

function fingerprintPlan(): PatchPlan {
  const compiled = compilePatches([{ path: 'metadata.annotations["example.com/a"]', expression: FINGERPRINT_EXPRESSION }], { configPath: CONFIG_PATH, vcluster: VCLUSTER });
  if (!compiled.ok) throw new Error(`the fingerprint expression does not compile: ${compiled.errors.map((e) => e.message).join('; ')}`);
  return compiled.plan;
}

/** The fingerprint the known-good plan answers for `annotation`, or why it did not. */
async function fingerprint(plan: PatchPlan, env: PatchEnvironment, annotation: string): Promise<string> {
  const result = await applyPatches(plan, { object: endpoints(annotation), hostObject: null, virtualObject: null }, env);
  if (!result.ok) return `failed: ${result.error.code} ${result.error.message}`;
  const metadata = result.object['metadata'] as { annotations: Record<string, unknown> };
  return String(metadata.annotations['example.com/a']);
}

/** Why the compile errors of `expression` are not located rejections, or undefined when they are. */
function rejectionProblem(expression: string, errors: readonly { code: string; configPath: string; line: number; column: number; message: string }[]): string | undefined {
  const lines = expression.split(/\r\n|[\n\r\u2028\u2029]/);
  if (errors.length === 0) return 'rejected without an error';
  for (const error of errors) {
    if (!error.configPath.startsWith(`${CONFIG_PATH}[0]`)) return `error not located at the patch: ${error.message}`;
    if (error.code === PatchErrorCode.EXPRESSION_SYNTAX || error.code === PatchErrorCode.EXPRESSION_FORBIDDEN) {
      const lineText = lines[error.line - 1];
      if (!(error.column >= 1) || lineText === undefined || error.column > lineText.length + 1) return `${error.code} at line ${error.line}, column ${error.column}, which is not in the expression: ${error.message}`;
      const place = error.line > 1 ? `line ${error.line}, column ${error.column}: ` : `column ${error.column}: `;
      if (!error.message.startsWith(`${error.configPath}: ${place}`)) return `message does not start with its location: ${error.message}`;
    } else {
      return `rejected for another reason than the expression (${error.code}): ${error.message}`;
    }
  }
  return undefined;
}

/**
 * Runs `count` cases from `seed` (see {@link expressionCases}) through compile and the sandbox,
 * one sandbox for the run, and reports counts and problems. Each compiled expression runs at one
 * of a few paths on an Endpoints object together with the known-good plan on another object in
 * the same turn (so in the same flush of the sandbox), then the known-good plan again.
 */
export async function runExpressionFuzz(options: ExpressionFuzzOptions): Promise<ExpressionFuzzReport> {
  const timeoutMs = options.timeoutMs ?? 250;
  const limitMs = 2 * timeoutMs + (options.slackMs ?? 10_000);
  const sandbox = new PatchSandbox({ timeoutMs, memoryLimitMiB: options.memoryLimitMiB ?? 16 });
  const env: PatchEnvironment = {
    sandbox,
    references: { toHost: (reference) => reference, toVirtual: (reference) => reference },
    labels: { toHostKey: (key) => key, toVirtualKey: (key) => key },
  };
  const globalsBefore = hostGlobals();
  const problems: string[] = [];
  const failedAtRun: Record<string, number> = {};
  let rejected = 0;
  let evaluated = 0;
  let slowestMs = 0;
  const random = new SeededRandom(options.seed ^ 0x5eed);
  try {
    const good = fingerprintPlan();
    const expected = await fingerprint(good, env, 'fresh');
    if (!expected.includes('"value":"fresh-ok"')) problems.push(`the known-good expression fails on a fresh isolate: ${expected}`);
    const cases = expressionCases(options.seed, options.count);
    for (const item of cases) {
      const where = `case ${item.index} (${item.recipe}, seed ${options.seed}) ${JSON.stringify(item.expression.slice(0, 160))}`;
      let compiled: ReturnType<typeof compilePatches>;
      const path = random.pick(PATHS);
      try {
        // The fingerprint rides in the case's own plan: the helpers are bound per plan, so only
        // a neighbour in the same plan sees what an evaluation left behind (state across evaluations).
        compiled = compilePatches([{ path, expression: item.expression }, { path: FINGERPRINT_PATH, expression: FINGERPRINT_EXPRESSION }], { configPath: CONFIG_PATH, vcluster: VCLUSTER });
      } catch (error: unknown) {
        problems.push(`${where}: compilePatches threw ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      if (!compiled.ok) {
        rejected += 1;
        const problem = rejectionProblem(item.expression, compiled.errors);
        if (problem !== undefined) problems.push(`${where}: ${problem}`);
        options.onCase?.(item.index + 1);
        continue;
      }
      const marker = `n${item.index}`;
      const started = performance.now();
      const [result, neighbour] = await Promise.all([
        applyPatches(compiled.plan, { object: endpoints(marker), hostObject: endpoints('host'), virtualObject: endpoints('virtual') }, env).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
        fingerprint(good, env, `${marker}-neighbour`),
      ]);
      const elapsedMs = performance.now() - started;
      slowestMs = Math.max(slowestMs, elapsedMs);
      if (elapsedMs > limitMs) problems.push(`${where}: took ${Math.round(elapsedMs)} ms (limit ${limitMs} ms)`);
      if (result instanceof Error || typeof result !== 'object' || result === null) {
        problems.push(`${where}: applyPatches threw ${result instanceof Error ? result.message : String(result)}`);
      } else if (result.ok) {
        evaluated += 1;
        if (JSON.stringify(result.object) === undefined) problems.push(`${where}: the patched object is not JSON`);
      } else {
        failedAtRun[result.error.code] = (failedAtRun[result.error.code] ?? 0) + 1;
        if (!RUN_OUTCOMES.has(result.error.code)) problems.push(`${where}: failed with ${result.error.code}: ${result.error.message}`);
        else if (!result.error.message.startsWith(`${CONFIG_PATH}`)) problems.push(`${where}: error not located: ${result.error.message}`);
      }
      const neighbourExpected = expected.replace('"fresh-ok"', `"${marker}-neighbour-ok"`);
      if (neighbour !== neighbourExpected) problems.push(`${where}: the known-good expression in the same turn answered ${neighbour.slice(0, 400)}`);
      // The case's plan on an object its expression does not reach: a fresh environment's answer.
      const bare = await applyPatches(compiled.plan, { object: bareEndpoints(`${marker}-bare`), hostObject: null, virtualObject: null }, env);
      const bareAnswer = bare.ok ? String((bare.object['metadata'] as { annotations: Record<string, unknown> }).annotations['example.com/fingerprint']) : `failed: ${bare.error.code} ${bare.error.message}`;
      const bareExpected = expected.replace('"fresh-ok"', `"${marker}-bare-ok"`);
      if (bareAnswer !== bareExpected) problems.push(`${where}: state across evaluations: the plan's fingerprint on the next object answered ${bareAnswer.slice(0, 400)}, expected ${bareExpected.slice(0, 400)}`);
      const after = await fingerprint(good, env, `${marker}-after`);
      const afterExpected = expected.replace('"fresh-ok"', `"${marker}-after-ok"`);
      if (after !== afterExpected) problems.push(`${where}: the known-good expression afterwards answered ${after.slice(0, 400)}, expected ${afterExpected.slice(0, 400)}`);
      options.onCase?.(item.index + 1);
    }
  } finally {
    sandbox.dispose();
  }
  if (hostGlobals() !== globalsBefore) problems.push(`the main process' globals or intrinsics changed (seed ${options.seed})`);
  return { seed: options.seed, tried: options.count, rejected, evaluated, failedAtRun, slowestMs: Math.round(slowestMs), replacements: sandbox.replacements, problems };
}
