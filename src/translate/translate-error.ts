/** Stable codes of {@link TranslateError}. */
export const TranslateErrorCode = {
  /** `createTranslator` options are unusable (empty vcluster name or host namespace). */
  INVALID_OPTIONS: 'TRANSLATE_INVALID_OPTIONS',
  /** `sync.toHost.namespaces.mappings.byName` breaks a rule once the vcluster name is known. */
  INVALID_NAMESPACE_MAPPING: 'TRANSLATE_INVALID_NAMESPACE_MAPPING',
} as const;

/** One of the codes in {@link TranslateErrorCode}. */
export type TranslateErrorCodeValue = (typeof TranslateErrorCode)[keyof typeof TranslateErrorCode];

/** Thrown only while building a translator; translating objects never throws. */
export class TranslateError extends Error {
  /** Stable code, one of {@link TranslateErrorCode}. */
  readonly code: TranslateErrorCodeValue;

  /** Creates an error with a stable code and a message saying what to change. */
  constructor(code: TranslateErrorCodeValue, message: string) {
    super(message);
    this.name = 'TranslateError';
    this.code = code;
  }
}
