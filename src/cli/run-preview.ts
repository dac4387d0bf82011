import { readFile } from 'node:fs/promises';
import { isMap, isSeq, LineCounter, parseAllDocuments, stringify, type Node } from 'yaml';
import { formatConfigError } from '../config/config-error.js';
import { PatchSandbox } from '../patches/index.js';
import { createHostPreview } from '../syncer/host-preview.js';
import { SYNCABLE_RESOURCES } from '../syncer/resources.js';
import { loadCheckedConfig } from '../syncer/sync-config.js';
import type { SyncableResource } from '../syncer/syncable-resource.js';
import { readJsonInput } from './json-input.js';
import { compileJsonPathTemplate } from './jsonpath-template.js';

/** Where {@link runPreview} reads objects from when the path is `-`. */
export const STDIN_PATH = '-';

/** Options of {@link runPreview}. */
export interface PreviewOptions {
  configPath: string;
  /** YAML (or JSON) with virtual Endpoints: documents, or `List`s of them; `-` reads `stdin`. */
  objectPath: string;
  vclusterName: string;
  hostNamespace: string;
  /** `yaml` (default), `json`, or `jsonpath=TEMPLATE` as kubectl writes it. */
  output?: string;
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  /** The resources whose objects are previewed (by kind). Default {@link SYNCABLE_RESOURCES}. */
  resources?: readonly SyncableResource[];
  /** Read when `objectPath` is `-`. Default process.stdin. */
  stdin?: AsyncIterable<string | Buffer> | Iterable<string | Buffer>;
  /**
   * Called once, before any object is previewed, when the input is JSON and the output is not
   * YAML (no YAML is read or written). The command tunes the process there. Default: nothing.
   */
  onJsonOnly?: () => void;
}

/** V8 flags of a preview's sandbox worker: no optimizing compiler (see runPreview). */
const PREVIEW_WORKER_V8_FLAGS: readonly string[] = ['--no-opt'];

/** One object found in the input, with where it starts (for errors). */
interface InputObject {
  value: unknown;
  line: number;
  column: number;
  /** `document 2` or `document 1 items[3]`. */
  label: string;
}

async function readAll(stream: AsyncIterable<string | Buffer> | Iterable<string | Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/**
 * Prints what the syncer does with each virtual object in the input whose kind a registered
 * resource syncs (Endpoints): the host object it would write (translation and patches exactly as
 * the controller runs them, for a first sync: no host copy exists yet), or, on standard error, that
 * it skips the object, with the skip cause and the reason (`default/kubernetes`, a plugin's object,
 * a disabled sync, an Endpoints whose Service has a selector, …). The rules read the Services in
 * the input; an input without Services is taken to have a Service without a selector for every
 * Endpoints. The input may hold several YAML documents and `List`s (what `kubectl get -o yaml`
 * prints). Output is YAML documents, JSON, or a kubectl-style JSONPath template, holding only host
 * objects; a `List` (or several documents) in gives a `List` out for `json` and `jsonpath` (empty
 * when everything was skipped). Every problem and skip is printed on standard error as
 * `FILE:LINE:COLUMN where: message`. Returns the exit code: 0 (skips included), or 1 when anything
 * failed.
 */
export async function runPreview(options: PreviewOptions): Promise<number> {
  const { err } = options;
  const output = options.output ?? 'yaml';
  let renderTemplate: ((value: unknown) => string) | undefined;
  if (output.startsWith('jsonpath=')) {
    try {
      renderTemplate = compileJsonPathTemplate(output.slice('jsonpath='.length));
    } catch (error) {
      err.write(`-o ${output}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  } else if (output !== 'yaml' && output !== 'json') {
    err.write(`-o ${output}: expected yaml, json or jsonpath=TEMPLATE\n`);
    return 1;
  }
  const resources = options.resources ?? SYNCABLE_RESOURCES;
  const loaded = await loadCheckedConfig(options.configPath, resources);
  if (!loaded.ok) {
    for (const error of loaded.errors) err.write(`${formatConfigError(error)}\n`);
    return 1;
  }
  const fileLabel = options.objectPath === STDIN_PATH ? '<stdin>' : options.objectPath;
  let text: string;
  try {
    text = options.objectPath === STDIN_PATH ? await readAll(options.stdin ?? process.stdin) : await readFile(options.objectPath, 'utf8');
  } catch (error) {
    err.write(`${fileLabel}: cannot read: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  // Problems are printed together, sorted by position, so they read top-down like validate's.
  const problems: { line: number; column: number; text: string }[] = [];
  const report = (at: { line: number; column: number }, label: string, message: string): void => {
    problems.push({ line: at.line, column: at.column, text: `${fileLabel}:${at.line}:${at.column} ${label}: ${message}` });
  };

  let failed = false;
  let isList = false;
  const inputs: InputObject[] = [];
  const json = readJsonInput(text);
  if (json !== undefined) {
    // JSON (what `kubectl get -o json` prints) read in one pass: the YAML reader would give the
    // same values and positions, many times slower on a large List.
    const lineCounter = new LineCounter();
    lineCounter.addNewLine(0);
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineCounter.addNewLine(at + 1);
    const position = (offset: number): { line: number; column: number } => {
      const { line, col } = lineCounter.linePos(offset);
      return { line, column: col };
    };
    const { value, itemStarts } = json;
    const kind = (value as { kind?: unknown } | null)?.kind;
    const items = (value as { items?: unknown }).items;
    if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(items) && itemStarts !== undefined) {
      isList = true;
      items.forEach((item: unknown, itemIndex) => {
        inputs.push({ value: item, ...position(itemStarts[itemIndex] ?? json.start), label: `document 1 items[${itemIndex}]` });
      });
    } else {
      inputs.push({ value, ...position(json.start), label: 'document 1' });
    }
    if (output !== 'yaml') options.onJsonOnly?.();
  } else {
    const lineCounter = new LineCounter();
    const documents = parseAllDocuments(text, { lineCounter });
    const position = (node: Node | null | undefined): { line: number; column: number } => {
      const { line, col } = lineCounter.linePos(node?.range?.[0] ?? 0);
      return { line, column: col };
    };
    for (const [index, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
      const label = `document ${index + 1}`;
      const syntax = document.errors[0];
      if (syntax !== undefined) {
        const [line, column] = syntax.linePos?.[0] !== undefined ? [syntax.linePos[0].line, syntax.linePos[0].col] : [0, 0];
        const message = (syntax.message.split('\n')[0] ?? 'invalid YAML').replace(/ at line \d+, column \d+:?$/, '');
        report({ line, column }, label, message);
        failed = true;
        continue;
      }
      const contents = document.contents;
      const value: unknown = document.toJS();
      if (value === null || value === undefined) continue;
      const kind = (value as { kind?: unknown }).kind;
      const items = isMap(contents) ? contents.get('items', true) : undefined;
      if (typeof kind === 'string' && kind.endsWith('List') && isSeq(items)) {
        isList = true;
        items.items.forEach((item, itemIndex) => {
          inputs.push({ value: (value as { items: unknown[] }).items[itemIndex], ...position(item as Node), label: `${label} items[${itemIndex}]` });
        });
        continue;
      }
      inputs.push({ value, ...position(contents as Node), label });
    }
  }
  if (inputs.length > 1) isList = true;

  // One worker process: starting one costs more CPU than a preview's expressions need, and the
  // pool size changes no result (every evaluation sees the same fresh environment). The daemon
  // retries an object whose worker started too slowly; a preview would fail it, so the start
  // (our code, not an expression: the expressions keep the daemon's time limit) may take longer.
  // The worker lives as long as the preview: without TurboFan (its compiling cost more CPU than
  // its code saved) its CPU per object of a 3,000-object preview halved and its start took 50 ms
  // less (measured, 3 expression patches, 12,000 objects no worse).
  const sandbox = new PatchSandbox({ workers: 1, setupTimeoutMs: 30_000, workerV8Flags: PREVIEW_WORKER_V8_FLAGS });
  try {
    const built = createHostPreview(resources, { vclusterName: options.vclusterName, hostNamespace: options.hostNamespace, config: loaded.config, sandbox });
    if (!built.ok) {
      for (const error of built.errors) err.write(`${options.configPath}: ${error.message}\n`);
      return 1;
    }
    const hostObjects: unknown[] = [];
    const outcomes = await built.preview.previewAll(inputs.map((input) => input.value));
    for (const [index, input] of inputs.entries()) {
      const outcome = outcomes[index];
      if (outcome === undefined) continue;
      if (outcome.kind !== 'host') {
        report(input, input.label, outcome.message);
        failed ||= outcome.kind === 'failed';
        continue;
      }
      if (output === 'yaml') {
        for (const item of outcome.imports) {
          options.out.write(`# imports ${item.kind} ${item.namespace}/${item.name} as ${item.hostNamespace}/${item.hostName}\n`);
        }
      }
      hostObjects.push(outcome.object);
    }
    for (const problem of problems.sort((a, b) => a.line - b.line || a.column - b.column)) err.write(`${problem.text}\n`);
    if (output === 'yaml') {
      for (const host of hostObjects) options.out.write(`---\n${stringify(host)}`);
    } else if (hostObjects.length > 0 || isList) {
      // A List in stays a List out, empty when every object was skipped: machine-readable either way.
      const result = isList ? { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: hostObjects } : hostObjects[0];
      options.out.write(renderTemplate !== undefined ? renderTemplate(result) : `${JSON.stringify(result, null, 4)}\n`);
    }
    return failed ? 1 : 0;
  } finally {
    sandbox.dispose();
  }
}

