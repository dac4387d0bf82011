/**
 * The CertificateSigningRequest strategy, as kube-apiserver's (pkg/registry/certificates and
 * pkg/apis/certificates/validation): the requester recorded from the request's user, the spec
 * immutable, the Approved/Denied conditions written only through `/approval` and the certificate
 * only through `/status`, and the validation of the request, signer name, usages, expiration and
 * conditions with the cause paths the real server names.
 */
import { X509Certificate } from 'node:crypto';
import { badRequest, isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { dns1123LabelError, dns1123SubdomainError, duplicateValue, forbiddenValue, invalidValue, type KindStrategy, notSupportedValue, requiredValue, rfc3339, type WriteContext } from '../apiserver/index.js';
import { certificateRequestError } from './certificate-request.js';

/** The signer of client certificates the API server trusts (kube-controller-manager's, and the devcluster's). */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
/** The v1beta1 default signer, refused by certificates.k8s.io/v1. */
const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';
/** The shortest certificate a request may ask for, in seconds. */
export const MIN_EXPIRATION_SECONDS = 600;

/** Every key usage the API knows (sorted, as the real server lists them). */
const KEY_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];
/** Condition types that may only be True. */
const TRUE_ONLY_CONDITIONS = ['Approved', 'Denied', 'Failed'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
/** The group every authenticated user is in; the real authenticator adds it. */
const AUTHENTICATED_GROUP = 'system:authenticated';
const ANONYMOUS_USER = 'system:anonymous';

function objectAt(object: JsonObject, key: string): JsonObject {
  const value = object[key];
  return isJsonObject(value) ? value : {};
}

function conditionsOf(object: JsonObject | undefined): JsonObject[] {
  const conditions = object === undefined ? undefined : objectAt(object, 'status')['conditions'];
  return Array.isArray(conditions) ? conditions.filter(isJsonObject) : [];
}

function ofType(object: JsonObject | undefined, type: string): JsonObject[] {
  return conditionsOf(object).filter((condition) => condition['type'] === type);
}

/** The PEM text of a `format: byte` field (base64 in JSON); a 400 when it is not base64, as the real decoder answers. */
function decodedBytes(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
    throw badRequest(`CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: ${field}: illegal base64 data`);
  }
  return Buffer.from(value, 'base64').toString('latin1');
}

/** Why `pem` is not a certificate chain as status.certificate must hold, or undefined. */
function certificateError(pem: string): string | undefined {
  if (pem === '') return undefined;
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const block of blocks) {
    if (block[1] !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block[1])}`;
    try {
      new X509Certificate(Buffer.from((block[2] ?? '').replace(/\s+/g, ''), 'base64'));
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}

/** The causes of an invalid signer name (Kubernetes' ValidateSignerName). */
function signerNameCauses(signerName: unknown): StatusCause[] {
  const field = 'spec.signerName';
  if (typeof signerName !== 'string' || signerName === '') return [requiredValue(field)];
  if (signerName === LEGACY_UNKNOWN_SIGNER) return [invalidValue(field, signerName, 'the legacy signerName is not allowed via this API version')];
  const segments = signerName.split('/');
  const [domain = '', path = ''] = segments;
  if (segments.length !== 2) return [invalidValue(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const causes: StatusCause[] = [];
  if (domain.length > 253) causes.push({ reason: 'FieldValueTooLong', field, message: 'Too long: may not be more than 253 bytes' });
  const labels = domain.split('.');
  for (const label of labels) {
    const error = dns1123LabelError(label);
    if (error !== undefined) {
      causes.push(invalidValue(field, domain, `validating label ${JSON.stringify(label)}: ${error}`));
      break;
    }
  }
  if (labels.length < 2) causes.push(invalidValue(field, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of path.split('.')) {
    const error = dns1123SubdomainError(label);
    if (error !== undefined) {
      causes.push(invalidValue(field, path, `validating label ${JSON.stringify(label)}: ${error}`));
      break;
    }
  }
  if (signerName.length > 571) causes.push({ reason: 'FieldValueTooLong', field, message: 'Too long: may not be more than 571 bytes' });
  return causes;
}

function usageCauses(usages: unknown): StatusCause[] {
  const list = Array.isArray(usages) ? usages : [];
  if (list.length === 0) return [requiredValue('spec.usages')];
  const causes: StatusCause[] = [];
  list.forEach((usage, index) => {
    if (!KEY_USAGES.includes(usage as string)) causes.push(notSupportedValue(`spec.usages[${index}]`, usage, KEY_USAGES));
  });
  list.forEach((usage, index) => {
    if (list.indexOf(usage) < index) causes.push(duplicateValue(`spec.usages[${index}]`, usage));
  });
  return causes;
}

function conditionCauses(object: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<unknown>();
  let approved = false;
  let denied = false;
  conditionsOf(object).forEach((condition, index) => {
    const at = `status.conditions[${index}]`;
    const type = condition['type'];
    const status = condition['status'];
    if (type === undefined || type === '') causes.push(requiredValue(`${at}.type`));
    const allowed = TRUE_ONLY_CONDITIONS.includes(type as string) ? ['True'] : CONDITION_STATUSES;
    if (status === undefined || status === '') causes.push(requiredValue(`${at}.status`));
    else if (!allowed.includes(status as string)) causes.push(notSupportedValue(`${at}.status`, status, allowed));
    if (type === 'Approved') approved = true;
    if (type === 'Denied') denied = true;
    if (seen.has(type)) causes.push(duplicateValue(`${at}.type`, type));
    seen.add(type);
  });
  if (approved && denied) causes.push(invalidValue('status.conditions', 'Approved, Denied', 'Approved and Denied conditions are mutually exclusive'));
  return causes;
}

/** The causes of an invalid spec: request, usages, signer name, expiration. */
function specCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const requestError = certificateRequestError(decodedBytes(spec['request'], 'spec.request'));
  if (requestError !== undefined) causes.push(invalidValue('spec.request', '<request data>', requestError));
  causes.push(...usageCauses(spec['usages']), ...signerNameCauses(spec['signerName']));
  const expiration = spec['expirationSeconds'];
  if (typeof expiration === 'number' && expiration < MIN_EXPIRATION_SECONDS) {
    causes.push(invalidValue('spec.expirationSeconds', expiration, `may not specify a duration less than ${MIN_EXPIRATION_SECONDS} seconds (10 minutes)`));
  }
  return causes;
}

/** The causes of an update that removes, adds or changes conditions or the certificate where `subresource` may not. */
function updateCauses(object: JsonObject, old: JsonObject, subresource: WriteContext['subresource']): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (ofType(object, type).length < ofType(old, type).length) causes.push(forbiddenValue('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  if (subresource !== 'approval') {
    for (const type of ['Approved', 'Denied']) {
      const before = ofType(old, type);
      const after = ofType(object, type);
      if (after.length > before.length) causes.push(forbiddenValue('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      else if (after.length === before.length && !jsonEqual(after, before)) causes.push(forbiddenValue('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
    }
  }
  const certificate = objectAt(object, 'status')['certificate'];
  const oldCertificate = objectAt(old, 'status')['certificate'];
  if ((certificate ?? '') !== (oldCertificate ?? '')) {
    if (subresource !== 'status') causes.push(forbiddenValue('status.certificate', 'updates may not set certificate content'));
    else if (typeof oldCertificate === 'string' && oldCertificate !== '') causes.push(forbiddenValue('status.certificate', 'updates may not modify existing certificate content'));
  }
  return causes;
}

/** Records the requester on a new request: username, uid, groups and extra of the writing user. */
function recordRequester(spec: JsonObject, context: WriteContext): void {
  for (const field of ['username', 'uid', 'groups', 'extra']) delete spec[field];
  const user = context.user;
  if (user === undefined) return;
  spec['username'] = user.username;
  const groups = user.username === ANONYMOUS_USER ? user.groups : [...new Set([...user.groups, AUTHENTICATED_GROUP])];
  if (groups.length > 0) spec['groups'] = [...groups];
  const extra = user.extra ?? {};
  if (Object.keys(extra).length > 0) spec['extra'] = Object.fromEntries(Object.entries(extra).map(([key, values]) => [key, [...values]]));
}

/** Condition times the writer left out: lastUpdateTime now, lastTransitionTime kept from the same type and status before, else now. */
function fillConditionTimes(object: JsonObject, old: JsonObject, now: string): void {
  for (const condition of conditionsOf(object)) {
    if (condition['lastUpdateTime'] === undefined || condition['lastUpdateTime'] === null) condition['lastUpdateTime'] = now;
    if (condition['lastTransitionTime'] === undefined || condition['lastTransitionTime'] === null) {
      const same = conditionsOf(old).find((before) => before['type'] === condition['type'] && before['status'] === condition['status'] && typeof before['lastTransitionTime'] === 'string');
      condition['lastTransitionTime'] = same?.['lastTransitionTime'] ?? now;
    }
  }
}

/** What the CSR strategy needs besides the objects. */
export interface CertificateSigningRequestRulesInit {
  /** Wall clock in ms since the epoch (condition times). */
  now: () => number;
}

/** The CertificateSigningRequest strategy (see the module comment). */
export function certificateSigningRequestStrategy(init: CertificateSigningRequestRulesInit): KindStrategy {
  return Object.freeze({
    prepareForWrite(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[] {
      if (old === undefined) {
        const spec = objectAt(object, 'spec');
        recordRequester(spec, context);
        object['spec'] = spec;
        // Nobody creates a request already approved or signed.
        object['status'] = {};
        return [];
      }
      object['spec'] = structuredClone(old['spec']);
      const oldStatus = objectAt(old, 'status');
      if (context.subresource === undefined) {
        object['status'] = structuredClone(oldStatus);
        return [];
      }
      if (context.subresource === 'approval') {
        // Only the conditions change through /approval.
        const conditions = objectAt(object, 'status')['conditions'];
        object['status'] = { ...structuredClone(oldStatus), ...(conditions !== undefined ? { conditions } : {}) };
        if (conditions === undefined) delete (object['status'] as JsonObject)['conditions'];
      }
      fillConditionTimes(object, old, rfc3339(init.now()));
      return [];
    },
    validate(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[] {
      // The spec is immutable (prepareForWrite keeps the stored one): it is checked when created.
      const causes = old === undefined ? specCauses(objectAt(object, 'spec')) : [];
      // Compatibility with stored data, as the real server: conditions already invalid in `old` are tolerated.
      if (old === undefined || conditionCauses(old).length === 0) causes.push(...conditionCauses(object));
      const certificate = decodedBytes(objectAt(object, 'status')['certificate'], 'status.certificate');
      const certificateUnchanged = old !== undefined && objectAt(object, 'status')['certificate'] === objectAt(old, 'status')['certificate'];
      const error = certificateUnchanged ? undefined : certificateError(certificate);
      if (error !== undefined) causes.push(invalidValue('status.certificate', '<certificate data>', error));
      if (old !== undefined) causes.push(...updateCauses(object, old, context.subresource));
      return causes;
    },
  });
}
