import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { createConfigSource, type ConfigPath } from '../config/index.js';
import { validateAccessScope } from '../management/access-scope.js';

/** What a scope file held: the scope, or every problem as `FILE:LINE:COLUMN field: message`. */
export type ScopeFileResult = { ok: true; scope: Record<string, unknown> } | { ok: false; problems: string[] };

/** `.rules[0].verbs` → `['rules', 0, 'verbs']`. */
function pathOf(field: string): ConfigPath {
  const path: (string | number)[] = [];
  for (const match of field.matchAll(/\.?([^.[\]]+)|\[(\d+)\]/g)) path.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? ''));
  return path;
}

/**
 * Parses and checks the text of a scope file (YAML or JSON: what goes under `spec.scope` of an
 * OwnedAccessKey or a DirectClusterEndpointToken) with the server's own scope validation, so that
 * a mistake is reported before anything is sent, at its line and column in `fileName`.
 */
export function parseScopeText(text: string, fileName: string): ScopeFileResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const syntax = document.errors[0];
  if (syntax !== undefined) {
    const at = syntax.linePos?.[0];
    return { ok: false, problems: [`${fileName}:${at?.line ?? 0}:${at?.col ?? 0}: ${(syntax.message.split('\n')[0] ?? 'invalid YAML').replace(/ at line \d+, column \d+:?$/, '')}`] };
  }
  const scope: unknown = document.toJS();
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope)) {
    return { ok: false, problems: [`${fileName}:1:1 scope: expected an object (roles, projects, spaces, virtualClusters, clusters, rules)`] };
  }
  const source = createConfigSource({ fileName, text, document, lineCounter });
  const problems = validateAccessScope(scope, '').map((cause) => {
    const field = cause.field ?? '';
    const at = source.locateNearest(pathOf(field));
    return `${fileName}:${at.line}:${at.column} scope${field}: ${cause.message}`;
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, scope: scope as Record<string, unknown> };
}

/** {@link parseScopeText} of the file at `path` (a problem when it cannot be read). */
export async function readScopeFile(path: string): Promise<ScopeFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error: unknown) {
    return { ok: false, problems: [`${path}: cannot read: ${error instanceof Error ? error.message : String(error)}`] };
  }
  return parseScopeText(text, path);
}
