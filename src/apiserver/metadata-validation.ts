import { isJsonObject, type StatusCause } from '../apimachinery/index.js';

/** How an object's name is validated, as Kubernetes does per kind. */
/**
 * How a kind's names are checked; `path-segment` only keeps names usable in a URL path, as for
 * kinds whose names Kubernetes does not restrict further (CertificateSigningRequests).
 */
export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

/** Kubernetes' limit on the total size of an object's annotations (keys plus values), in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME_MESSAGE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** Why `value` is not an RFC 1123 subdomain (≤ 253 characters), or undefined when it is one. */
export function dns1123SubdomainError(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  return DNS1123_SUBDOMAIN.test(value) ? undefined : SUBDOMAIN_MESSAGE;
}

/** Why `value` is not an RFC 1123 label (≤ 63 characters), or undefined when it is one. */
export function dns1123LabelError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  return DNS1123_LABEL.test(value) ? undefined : LABEL_MESSAGE;
}

/** Why `value` is not an RFC 1035 label (≤ 63 characters), or undefined when it is one. */
export function dns1035LabelError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  return DNS1035_LABEL.test(value) ? undefined : DNS1035_MESSAGE;
}

/** Why `name` is not valid under `rule`, or undefined when it is valid. */
export function nameError(rule: NameRule, name: string): string | undefined {
  switch (rule) {
    case 'dns1123-subdomain':
      return dns1123SubdomainError(name);
    case 'dns1123-label':
      return dns1123LabelError(name);
    case 'dns1035-label':
      return dns1035LabelError(name);
    case 'path-segment':
      return pathSegmentNameError(name);
  }
}

/** Why `name` cannot be a URL path segment (Kubernetes' IsValidPathSegmentName), or undefined. */
function pathSegmentNameError(name: string): string | undefined {
  if (name === '.' || name === '..') return `may not be '${name}'`;
  if (name.includes('/')) return "may not contain '/'";
  if (name.includes('%')) return "may not contain '%'";
  return undefined;
}

/**
 * Why `key` is not a qualified name (`[prefix/]name`, prefix a DNS subdomain, name ≤ 63
 * characters): the syntax of label and annotation keys. Undefined when valid.
 */
export function labelKeyError(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `${QUALIFIED_NAME_MESSAGE.replace('name part ', 'a qualified name ')}`;
  const name = parts.length === 2 ? (parts[1] ?? '') : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix.length === 0) return 'prefix part must be non-empty';
    const prefixError = dns1123SubdomainError(prefix);
    if (prefixError !== undefined) return `prefix part ${prefixError}`;
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  return QUALIFIED_NAME_PART.test(name) ? undefined : QUALIFIED_NAME_MESSAGE;
}

/** Why `value` is not a valid label value (≤ 63 characters, may be empty), or undefined. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  return LABEL_VALUE.test(value) ? undefined : LABEL_VALUE_MESSAGE;
}

/** A FieldValueInvalid cause in Kubernetes' wording. */
export function invalidValue(field: string, value: unknown, why: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${why}` };
}

/** A FieldValueForbidden cause in Kubernetes' wording. */
export function forbiddenValue(field: string, why: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${why}` };
}

/** A FieldValueNotSupported cause in Kubernetes' wording. */
export function notSupportedValue(field: string, value: unknown, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((one) => JSON.stringify(one)).join(', ')}` };
}

/** A FieldValueDuplicate cause in Kubernetes' wording. */
export function duplicateValue(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${JSON.stringify(value)}` };
}

/** A FieldValueRequired cause. */
export function requiredValue(field: string, why = ''): StatusCause {
  return { reason: 'FieldValueRequired', field, message: why === '' ? 'Required value' : `Required value: ${why}` };
}

function validateStringMap(field: string, value: unknown, causes: StatusCause[], checkValue: boolean): void {
  if (value === undefined || value === null) return;
  if (!isJsonObject(value)) {
    causes.push(invalidValue(field, value, 'must be a map of string keys to string values'));
    return;
  }
  for (const [key, entry] of Object.entries(value)) {
    const keyError = labelKeyError(key);
    if (keyError !== undefined) causes.push(invalidValue(field, key, keyError));
    if (typeof entry !== 'string') {
      causes.push(invalidValue(`${field}.${key}`, entry, 'must be a string'));
      continue;
    }
    if (checkValue) {
      const valueError = labelValueError(entry);
      if (valueError !== undefined) causes.push(invalidValue(field, entry, valueError));
    }
  }
}

function validateOwnerReferences(value: unknown, causes: StatusCause[]): void {
  if (value === undefined || value === null) return;
  const field = 'metadata.ownerReferences';
  if (!Array.isArray(value)) {
    causes.push(invalidValue(field, value, 'must be a list'));
    return;
  }
  const controllers: string[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (!isJsonObject(entry)) {
      causes.push(invalidValue(at, entry, 'must be an object'));
      return;
    }
    for (const key of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      const item = entry[key];
      if (typeof item !== 'string' || item === '') causes.push(requiredValue(`${at}.${key}`, `${key} must not be empty`));
    }
    if (entry['controller'] === true) controllers.push(`${String(entry['kind'])}/${String(entry['name'])}`);
  });
  if (controllers.length > 1) {
    causes.push(
      invalidValue(field, value, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`),
    );
  }
}

/** What {@link validateObjectMeta} needs to know about the object's resource. */
export interface MetaRules {
  nameRule: NameRule;
  namespaced: boolean;
}

/**
 * Validates an object's metadata as the real API server does for every kind: name and
 * generateName (per the kind's rule), namespace (DNS label), label keys and values, annotation keys and total size
 * (≤ 256 KiB), owner references (at most one controller), finalizers. Returns the causes of an
 * `Invalid` failure; empty when valid.
 */
export function validateObjectMeta(rules: MetaRules, metadata: Record<string, unknown>): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = metadata['name'];
  if (typeof name !== 'string' || name === '') {
    causes.push(requiredValue('metadata.name', 'name or generateName is required'));
  } else {
    const error = nameError(rules.nameRule, name);
    if (error !== undefined) causes.push(invalidValue('metadata.name', name, error));
  }
  const prefix = metadata['generateName'];
  if (prefix !== undefined && prefix !== null && prefix !== '') {
    // Checked on every write, as a name whose trailing dash is allowed (the real server masks it).
    const error = typeof prefix === 'string' ? nameError(rules.nameRule, prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix) : 'must be a string';
    if (error !== undefined) causes.push(invalidValue('metadata.generateName', prefix, error));
  }
  const namespace = metadata['namespace'];
  if (rules.namespaced) {
    if (typeof namespace !== 'string' || namespace === '') causes.push(requiredValue('metadata.namespace'));
    else {
      const error = dns1123LabelError(namespace);
      if (error !== undefined) causes.push(invalidValue('metadata.namespace', namespace, error));
    }
  } else if (typeof namespace === 'string' && namespace !== '') {
    causes.push({ reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' });
  }
  validateStringMap('metadata.labels', metadata['labels'], causes, true);
  const annotations = metadata['annotations'];
  validateStringMap('metadata.annotations', annotations, causes, false);
  if (isJsonObject(annotations)) {
    let total = 0;
    for (const [key, value] of Object.entries(annotations)) total += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
      causes.push({ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes` });
    }
  }
  validateOwnerReferences(metadata['ownerReferences'], causes);
  const finalizers = metadata['finalizers'];
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((entry) => typeof entry !== 'string' || entry === '')) {
      causes.push(invalidValue('metadata.finalizers', finalizers, 'must be a list of non-empty strings'));
    } else {
      for (const finalizer of finalizers as string[]) {
        const error = labelKeyError(finalizer);
        if (error !== undefined) causes.push(invalidValue('metadata.finalizers', finalizer, error));
      }
    }
  }
  return causes;
}
