import { badRequest, invalid, invalidOptions, isJsonObject, type StatusCause } from '../apimachinery/index.js';
import { reportedFields } from './duplicate-fields.js';
import { genericKindSchema } from './openapi.js';
import type { ResourceType } from './resource-type.js';
import { forbiddenValue } from './metadata-validation.js';
import { pruneObject } from './schema-pruning.js';

/** The `fieldValidation` query parameter of writes. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The options object a write's query parameters stand for, as the real server names it in errors. */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const MODES: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/**
 * Reads `fieldValidation`; absent means `Warn`, the API server's default since 1.27 (kubectl
 * itself sends `Strict`). Any other value is a 422 Invalid naming the write's options object
 * (`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: …`), as on the
 * real server.
 */
export function fieldValidationOf(query: URLSearchParams, options: WriteOptionsKind): FieldValidation {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if ((MODES as readonly string[]).includes(value)) return value as FieldValidation;
  const message = `Unsupported value: ${JSON.stringify(value)}: supported values: "", "${[...MODES].sort().join('", "')}"`;
  throw invalidOptions(options, [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }]);
}

/**
 * Prunes a written object (a fresh copy, changed in place) against the kind's schema, as the real
 * server's decoder and storage do: fields the schema does not know are dropped at every depth,
 * empty optional lists and maps go (see {@link pruneObject}). `body` is the request body the
 * object was copied from, whose duplicate JSON keys are reported too. `Strict` refuses an object
 * with unknown or duplicate fields with the server's 400 message instead; `Warn` reports each
 * through `warn` (the handler turns them into `Warning` headers); both in document order.
 * Unknown fields below an object whose schema refuses them (`x-vcsync-refuse-unknown-fields`,
 * see `schema-pruning.ts`) are a 422 Invalid whatever the mode: dropping them could change what
 * the object means.
 */
export function pruneUnknownFields(
  type: ResourceType,
  object: Record<string, unknown>,
  body: unknown,
  mode: FieldValidation,
  warn: (message: string) => void,
): void {
  const { unknown, refused } = pruneObject(type.schema ?? genericKindSchema(type), object);
  if (refused.length > 0) {
    const metadata = object['metadata'];
    const name = isJsonObject(metadata) ? metadata['name'] : undefined;
    const causes: StatusCause[] = refused.map(({ path, known }) =>
      forbiddenValue(path, `unknown field; it is refused rather than dropped, since dropping it could change what this object means (known fields here: ${known.join(', ')})`),
    );
    throw invalid(type.kind, type.group, typeof name === 'string' ? name : '', causes);
  }
  if (mode === 'Ignore') return;
  const messages = reportedFields(body, unknown).map(({ path, problem }) => `${problem} field ${JSON.stringify(path)}`);
  if (messages.length === 0) return;
  if (mode === 'Strict') {
    throw badRequest(`${type.kind} in version ${JSON.stringify(type.version)} cannot be handled as a ${type.kind}: strict decoding error: ${messages.join(', ')}`);
  }
  for (const message of messages) warn(message);
}
