import { stringify } from 'yaml';
import type { ConfigError } from '#vcsync/config/config-error.js';
import { SeededRandom } from '../seeded-random.js';

/**
 * Seeded generation of mutated vcluster.yaml files for the config fuzz tests: documents derived
 * from the JSON schema and the example, then mutated as data (keys deleted, wrong types, huge and
 * deep values, unknown keys) or as text and bytes (truncations, duplicate keys, anchors and alias
 * bombs, tags, invalid UTF-8, random bytes). The same seed yields the same variants, so a failure
 * is replayed with `VCSYNC_FUZZ_SEED`.
 */

/** One generated config file: its bytes and how it was made (for the failure message). */
export interface FuzzVariant {
  readonly index: number;
  readonly recipe: string;
  readonly bytes: Buffer;
}

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  required?: string[];
};

const PATCH_PATHS = ['metadata.labels[*]', 'metadata.annotations["example.com/upstream"]', 'metadata.name', 'subsets[*].addresses[*].ip', 'metadata.labels', 'spec', '[', 'metadata..x', '*'];
const EXPRESSIONS = [
  'value',
  'typeof value === "string" ? value.toLowerCase() : value',
  'virtualToHostDNS(value)',
  'context.virtualObject?.metadata?.name ?? value',
  'value +',
  'while (true) {}',
  'new Array(1e9).fill(0)',
  '(() => { throw new Error("x") })()',
  'this.constructor.constructor("return process")()',
  '`${value}`',
  ')',
];
const STRINGS = ['', 'x', 'team-*', '${name}-team-*', 'default', 'kube-system', '*', '${name}', 'a*b', 'v1', 'ConfigMap', 'metadata.name', 'yes', 'null', '0x1F', '~', '\u0000', '\u202e', '💥', '"quoted"'];

/** A random document of the shape `schema` describes (types right, values often not). */
export function documentFromSchema(random: SeededRandom, schema: JsonSchema, depth = 0): unknown {
  if (depth > 12) return null;
  switch (schema.type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        const required = schema.required?.includes(key) ?? false;
        // vcsync's sections are written more often than the sections it ignores.
        const interesting = child.type !== undefined;
        if (required || random.chance(interesting ? 0.6 : 0.05)) result[key] = documentFromSchema(random, child, depth + 1);
      }
      if (schema.patternProperties !== undefined) {
        const count = random.int(4);
        for (let i = 0; i < count; i++) result[random.pick(STRINGS) || `key${i}`] = random.pick(STRINGS);
      }
      return result;
    }
    case 'array': {
      const count = random.int(4);
      return Array.from({ length: count }, () => documentFromSchema(random, schema.items ?? {}, depth + 1));
    }
    case 'boolean':
      return random.chance(0.5);
    case 'string':
      return random.pick([...STRINGS, ...PATCH_PATHS, ...EXPRESSIONS]);
    case 'number':
    case 'integer':
      return random.int(1000);
    default:
      return anyValue(random, depth);
  }
}

/** What vcluster's other sections might hold: any YAML value. */
function anyValue(random: SeededRandom, depth: number): unknown {
  switch (random.int(depth > 3 ? 5 : 7)) {
    case 0:
      return random.pick(STRINGS);
    case 1:
      return random.chance(0.5);
    case 2:
      return random.int(100000) - 50000;
    case 3:
      return null;
    case 4:
      return random.next() * 1e6;
    case 5:
      return { enabled: random.chance(0.5), [random.pick(STRINGS) || 'k']: anyValue(random, depth + 1) };
    default:
      return [anyValue(random, depth + 1), anyValue(random, depth + 1)];
  }
}

/** A value of a different kind than `value` (or a huge or deep one). */
function wrongValue(random: SeededRandom, value: unknown): unknown {
  const candidates: unknown[] = [
    'yes',
    'true',
    42,
    -1.5e308,
    null,
    [],
    {},
    [value],
    { value },
    'x'.repeat(1 + random.int(random.chance(0.1) ? 200_000 : 2_000)),
    nested(random.int(300) + 1),
    Object.fromEntries(Array.from({ length: random.chance(0.05) ? 3000 : 100 }, (_, i) => [`k${i}`, i])),
    Array.from({ length: random.chance(0.05) ? 3000 : 100 }, (_, i) => i),
    `${typeof value === 'string' ? value : 'text'}\u0000\u0007\ud800`,
  ];
  return random.pick(candidates.filter((candidate) => typeof candidate !== typeof value || Array.isArray(candidate) !== Array.isArray(value) || typeof candidate === 'string'));
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { deeper: value } : [value];
  return value;
}

/** Every [parent, key] pair of a document, its root excluded. */
function slots(value: unknown): { parent: Record<string, unknown> | unknown[]; key: string | number }[] {
  const found: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > 40 || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      node.forEach((child, index) => {
        found.push({ parent: node, key: index });
        visit(child, depth + 1);
      });
      return;
    }
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      found.push({ parent: node as Record<string, unknown>, key });
      visit(child, depth + 1);
    }
  };
  visit(value, 0);
  return found;
}

/** Mutates parsed config data in place, `count` times; returns what it did. */
function mutateData(random: SeededRandom, data: Record<string, unknown>, count: number): string[] {
  const done: string[] = [];
  for (let i = 0; i < count; i++) {
    const all = slots(data);
    const slot = all.length > 0 ? random.pick(all) : undefined;
    const kind = slot === undefined ? 'add-key' : random.pick(['delete-key', 'wrong-type', 'wrong-type', 'add-key', 'rename-key', 'null', 'duplicate-into-list']);
    done.push(kind);
    if (slot === undefined || kind === 'add-key') {
      const target = slot !== undefined && typeof (slot.parent as unknown[])[slot.key as number] === 'object' ? (slot.parent as Record<string | number, unknown>)[slot.key] : data;
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
        (target as Record<string, unknown>)[random.pick(['enabled', 'patches', 'toHots', 'endpoint', 'mappings', 'byName', 'x', '__proto__', 'constructor', ''])] = anyValue(random, 0);
      }
      continue;
    }
    const { parent, key } = slot;
    const record = parent as Record<string | number, unknown>;
    switch (kind) {
      case 'delete-key':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete record[key];
        break;
      case 'wrong-type':
        record[key] = wrongValue(random, record[key]);
        break;
      case 'rename-key':
        if (!Array.isArray(parent)) {
          const value = record[key];
          delete record[key];
          record[`${String(key).slice(0, -1)}${random.pick(['s', '', 'x', 'E'])}`] = value;
        }
        break;
      case 'null':
        record[key] = null;
        break;
      default:
        record[key] = [record[key], record[key]];
    }
  }
  return done;
}

const ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';

/** Mutates config text, returning the new text and what was done. */
function mutateText(random: SeededRandom, text: string): { text: string; did: string } {
  const lines = text.split('\n');
  const at = random.int(lines.length);
  const kind = random.pick([
    'truncate',
    'duplicate-line',
    'delete-line',
    'swap-lines',
    'indent',
    'tab-indent',
    'anchor-alias',
    'alias-bomb',
    'self-alias',
    'unknown-alias',
    'merge-key',
    'tag',
    'flow-garbage',
    'multi-document',
    'crlf',
    'bom',
    'deep-flow',
    'long-line',
    'directive',
    'complex-key',
  ]);
  const insert = (line: string): string => [...lines.slice(0, at), line, ...lines.slice(at)].join('\n');
  switch (kind) {
    case 'truncate':
      return { text: text.slice(0, random.int(text.length + 1)), did: kind };
    case 'duplicate-line':
      return { text: insert(lines[at] ?? ''), did: kind };
    case 'delete-line':
      return { text: [...lines.slice(0, at), ...lines.slice(at + 1)].join('\n'), did: kind };
    case 'swap-lines': {
      const other = random.int(lines.length);
      const copy = [...lines];
      [copy[at], copy[other]] = [copy[other] ?? '', copy[at] ?? ''];
      return { text: copy.join('\n'), did: kind };
    }
    case 'indent':
      return { text: lines.map((line, i) => (i === at ? `${' '.repeat(1 + random.int(5))}${line}` : line)).join('\n'), did: kind };
    case 'tab-indent':
      return { text: lines.map((line, i) => (i === at ? `\t${line}` : line)).join('\n'), did: kind };
    case 'anchor-alias':
      return { text: `x-shared: &shared\n  enabled: ${random.pick(['true', 'yes', '1', '{}'])}\n${text}\n${random.pick(['sync', 'privateNodes', 'networking'])}: *shared\n`, did: kind };
    case 'alias-bomb':
      return { text: `${ALIAS_BOMB}${text}`, did: kind };
    case 'self-alias':
      return { text: insert(`${random.pick(['loop', 'sync'])}: &loop [*loop]`), did: kind };
    case 'unknown-alias':
      return { text: insert(`${random.pick(['x', 'sync', '  enabled'])}: *nowhere`), did: kind };
    case 'merge-key':
      return { text: `base: &base {enabled: false}\n${text.replace(/endpoints:\n/, 'endpoints:\n      <<: *base\n')}`, did: kind };
    case 'tag':
      return { text: insert(`${random.pick(['x', 'sync', 'controlPlane'])}: ${random.pick(['!!binary aGVsbG8=', '!!str 1', '!!int x', '!!set {a, b}', '!!omap [a: 1]', '!custom {}', '!!timestamp 2001-12-14', '!!float .nan', '!!js/function "f(){}"'])}`), did: kind };
    case 'flow-garbage':
      return { text: insert(random.pick(['{', '}', '[', '- ', ': :', '? ', '&', '*', '|', '>', '%', '@', '`', '"unterminated', "'x'y'"])), did: kind };
    case 'multi-document':
      return { text: `${text}\n---\n${text}`, did: kind };
    case 'crlf':
      return { text: text.replace(/\n/g, '\r\n'), did: kind };
    case 'bom':
      return { text: `\ufeff${text}`, did: kind };
    case 'deep-flow': {
      const depth = 1 + random.int(1200);
      return { text: insert(`${random.pick(['x', 'sync'])}: ${'['.repeat(depth)}${']'.repeat(depth)}`), did: `${kind}(${depth})` };
    }
    case 'long-line':
      return { text: insert(`${random.pick(['x', '  enabled', 'k'.repeat(2000)])}: ${'y'.repeat(1 + random.int(100_000))}`), did: kind };
    case 'directive':
      return { text: `${random.pick(['%YAML 1.1', '%YAML 1.2', '%YAML 9.9', '%TAG ! tag:x,2000:', '%FOO'])}\n---\n${text}`, did: kind };
    default:
      return { text: insert(`${random.pick(['? [a, b]\n: 1', '? {a: 1}\n: 2', '1: x', 'null: x', '~: y', 'true: z'])}`), did: kind };
  }
}

/** Mutates bytes: invalid UTF-8, random bytes, control characters. */
function mutateBytes(random: SeededRandom, bytes: Buffer): { bytes: Buffer; did: string } {
  const at = random.int(bytes.length + 1);
  const splice = (insert: Buffer, remove = 0): Buffer => Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(Math.min(bytes.length, at + remove))]);
  const kind = random.pick(['invalid-utf8', 'random-bytes', 'flip-byte', 'nul', 'overlong', 'lone-surrogate', 'utf16']);
  switch (kind) {
    case 'invalid-utf8':
      return { bytes: splice(Buffer.from([random.pick([0xff, 0xfe, 0xc0, 0x80, 0xe2, 0xf5])])), did: kind };
    case 'random-bytes':
      return { bytes: splice(Buffer.from(Array.from({ length: 1 + random.int(64) }, () => random.int(256)))), did: kind };
    case 'flip-byte':
      return { bytes: splice(Buffer.from([random.int(256)]), 1), did: kind };
    case 'nul':
      return { bytes: splice(Buffer.from([0])), did: kind };
    case 'overlong':
      return { bytes: splice(Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf])), did: kind };
    case 'lone-surrogate':
      return { bytes: splice(Buffer.from([0xed, 0xa0, 0x80])), did: kind };
    default:
      return { bytes: Buffer.from(bytes.toString('utf8'), 'utf16le'), did: kind };
  }
}

/** Options of {@link configVariants}. */
export interface ConfigVariantsOptions {
  seed: number;
  count: number;
  /** The example file's text (config/vcluster.yaml). */
  example: string;
  /** The JSON schema (config/vcluster.schema.json). */
  schema: object;
  /** Loads YAML text as data (the test passes `yaml`'s `parse`). */
  parseYaml: (text: string) => unknown;
}

/**
 * `count` mutated config files from `seed`: each starts from the example or a schema-derived
 * document, gets data mutations, then usually text mutations, sometimes byte mutations. A few
 * are pure random bytes.
 */
export function* configVariants(options: ConfigVariantsOptions): Generator<FuzzVariant> {
  const random = new SeededRandom(options.seed);
  for (let index = 0; index < options.count; index++) {
    const recipe: string[] = [];
    if (random.chance(0.02)) {
      const bytes = Buffer.from(Array.from({ length: random.int(512) }, () => random.int(256)));
      yield { index, recipe: 'random-bytes-file', bytes };
      continue;
    }
    let data: Record<string, unknown>;
    if (random.chance(0.4)) {
      data = (options.parseYaml(options.example) ?? {}) as Record<string, unknown>;
      recipe.push('example');
    } else {
      data = documentFromSchema(random, options.schema as JsonSchema) as Record<string, unknown>;
      recipe.push('schema');
    }
    const dataMutations = random.int(4);
    if (dataMutations > 0) recipe.push(...mutateData(random, data, dataMutations));
    let text = recipe[0] === 'example' && dataMutations === 0 ? options.example : stringify(data, { aliasDuplicateObjects: false, lineWidth: 0 });
    const textMutations = random.int(3);
    for (let i = 0; i < textMutations; i++) {
      const mutated = mutateText(random, text);
      text = mutated.text;
      recipe.push(mutated.did);
    }
    let bytes: Buffer = Buffer.from(text, 'utf8');
    if (random.chance(0.15)) {
      const mutated = mutateBytes(random, bytes);
      bytes = mutated.bytes;
      recipe.push(mutated.did);
    }
    yield { index, recipe: recipe.join(' → '), bytes };
  }
}

/** Internal exception wording that must never reach a user as a config error. */
const LEAKED_INTERNALS = /Maximum call stack|Cannot freeze|Cannot read propert|is not a function|is not iterable|undefined|\[object Object\]|RangeError|TypeError/;

/**
 * Why `errors` are not a proper answer for the file `fileName` whose text has `lineCount` lines
 * (empty when they are): at least one error; each with a stable code, the file, a 1-based line
 * and column inside the text, a path, and a bounded message that says what is wrong, without
 * internal exception wording.
 */
export function configErrorProblems(errors: readonly ConfigError[], fileName: string, lineCount: number): string[] {
  if (errors.length === 0) return ['a rejected config with no error'];
  const problems: string[] = [];
  for (const error of errors) {
    const shown = JSON.stringify(error).slice(0, 300);
    if (!/^[A-Z][A-Z0-9_]+$/.test(error.code)) problems.push(`code: ${shown}`);
    if (error.file !== fileName) problems.push(`file: ${shown}`);
    if (!Number.isInteger(error.line) || error.line < 1 || error.line > lineCount + 1) problems.push(`line: ${shown}`);
    if (!Number.isInteger(error.column) || error.column < 1) problems.push(`column: ${shown}`);
    if (typeof error.path !== 'string') problems.push(`path: ${shown}`);
    if (typeof error.message !== 'string' || error.message.trim() === '') problems.push(`empty message: ${shown}`);
    else if (error.message.length > 2000) problems.push(`message of ${error.message.length} characters: ${shown}`);
    else if (LEAKED_INTERNALS.test(error.message)) problems.push(`internal wording: ${shown}`);
  }
  return problems;
}
