/**
 * The strategy of apps/v1 StatefulSets, as kube-apiserver's (pkg/apis/apps: defaults, validation,
 * registry strategy): the API defaults of the spec and its Pod template, an empty status on
 * create, a required, non-empty selector that matches the template's labels, and a spec of which
 * only replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
 * persistentVolumeClaimRetentionPolicy and minReadySeconds may change. The devcluster stores
 * StatefulSets; no controller makes their Pods (README "Limits").
 */
import { isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { forbiddenValue, invalidValue, type KindStrategy, labelKeyError, labelValueError, notSupportedValue, requiredValue, type WriteContext } from '../apiserver/index.js';
import { defaultPodSpec } from './pod-defaults.js';

/** The spec fields an update may change (ValidateStatefulSetUpdate). */
const MUTABLE_SPEC_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
const IMMUTABLE_SPEC_MESSAGE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

function record(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `SetDefaults_StatefulSet` (StatefulSetAutoDeletePVC on, MaxUnavailableStatefulSet off, as in the real server) and the template's Pod defaults. */
function defaultStatefulSet(object: JsonObject): void {
  const spec: JsonObject = { ...record(object['spec']) };
  spec['podManagementPolicy'] ??= 'OrderedReady';
  const strategy: JsonObject = { ...record(spec['updateStrategy']) };
  if (strategy['type'] === undefined || strategy['type'] === '') {
    strategy['type'] = 'RollingUpdate';
    strategy['rollingUpdate'] ??= {};
  }
  if (strategy['type'] === 'RollingUpdate' && isJsonObject(strategy['rollingUpdate'])) {
    strategy['rollingUpdate'] = { partition: 0, ...strategy['rollingUpdate'] };
  }
  spec['updateStrategy'] = strategy;
  spec['persistentVolumeClaimRetentionPolicy'] = { whenDeleted: 'Retain', whenScaled: 'Retain', ...record(spec['persistentVolumeClaimRetentionPolicy']) };
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  const template = record(spec['template']);
  spec['template'] = { ...template, spec: defaultPodSpec(template['spec']) };
  object['spec'] = spec;
}

/** Whether the label selector `selector` (matchLabels and matchExpressions) selects `labels`. */
function selects(selector: JsonObject, labels: JsonObject): boolean {
  const matchLabels = Object.entries(record(selector['matchLabels'])).every(([key, value]) => labels[key] === value);
  return (
    matchLabels &&
    list(selector['matchExpressions']).every((expression) => {
      const { key, operator, values } = record(expression);
      const has = typeof key === 'string' && Object.hasOwn(labels, key);
      const among = has && list(values).includes(labels[key]);
      if (operator === 'In') return among;
      if (operator === 'NotIn') return !among;
      return operator === 'Exists' ? has : !has;
    })
  );
}

/** `ValidateLabelSelector`: label keys and values, operators and their values. */
function selectorCauses(selector: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(record(selector['matchLabels']))) {
    const keyError = labelKeyError(key);
    if (keyError !== undefined) causes.push(invalidValue('spec.selector.matchLabels', key, keyError));
    const valueError = labelValueError(String(value));
    if (valueError !== undefined) causes.push(invalidValue(`spec.selector.matchLabels`, value, valueError));
  }
  list(selector['matchExpressions']).forEach((expression, index) => {
    const field = `spec.selector.matchExpressions[${index}]`;
    const { operator, values } = record(expression);
    const count = list(values).length;
    if (!SELECTOR_OPERATORS.includes(String(operator))) causes.push(invalidValue(`${field}.operator`, operator, 'not a valid selector operator'));
    else if ((operator === 'In' || operator === 'NotIn') && count === 0) causes.push(requiredValue(`${field}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((operator === 'Exists' || operator === 'DoesNotExist') && count > 0) causes.push(forbiddenValue(`${field}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  });
  return causes;
}

/** Whether `selector` has no requirement (it selects everything). */
function selectorIsEmpty(selector: JsonObject): boolean {
  return list(selector['matchExpressions']).length + Object.keys(record(selector['matchLabels'])).length === 0;
}

/** The causes of `selector`'s own errors, and whether it is a selector at all (LabelSelectorAsSelector succeeds). */
function selectorOutcome(selector: unknown): { causes: StatusCause[]; parsed: boolean } {
  if (!isJsonObject(selector)) return { causes: [requiredValue('spec.selector')], parsed: false };
  const causes = selectorCauses(selector);
  const parsed = causes.length === 0;
  if (!parsed) causes.push(invalidValue('spec.selector', selector, ''));
  else if (selectorIsEmpty(selector)) {
    causes.push(invalidValue('spec.selector', selector, 'empty selector is invalid for statefulset'));
  }
  return { causes, parsed };
}

/** `ValidateStatefulSetSpec`, the parts the devcluster checks, in the real server's order. */
function specCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = spec['podManagementPolicy'];
  if (policy !== 'OrderedReady' && policy !== 'Parallel') causes.push(invalidValue('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = record(spec['updateStrategy']);
  if (strategy['type'] !== 'RollingUpdate' && strategy['type'] !== 'OnDelete') causes.push(invalidValue('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) causes.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
  const selector = selectorOutcome(spec['selector']);
  causes.push(...selector.causes);
  // A selector that does not parse stops the template's checks; a missing one selects nothing.
  if (isJsonObject(spec['selector']) && !selector.parsed) return causes;
  const template = record(spec['template']);
  const labels = record(record(template['metadata'])['labels']);
  const selected = isJsonObject(spec['selector']) ? selectorIsEmpty(spec['selector']) || selects(spec['selector'], labels) : false;
  if (!selected) causes.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  const podSpec = record(template['spec']);
  if (list(podSpec['containers']).length === 0) causes.push(requiredValue('spec.template.spec.containers'));
  if (podSpec['restartPolicy'] !== 'Always') causes.push(notSupportedValue('spec.template.spec.restartPolicy', podSpec['restartPolicy'], ['Always']));
  return causes;
}

/** The spec without the fields an update may change. */
function frozenSpec(spec: unknown): JsonObject {
  return Object.fromEntries(Object.entries(record(spec)).filter(([field]) => !MUTABLE_SPEC_FIELDS.includes(field)));
}

/** StatefulSets: the real server's defaults and the validation of spec, selector and template labels. */
export const STATEFUL_SET_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[] {
    if (context.subresource !== undefined) return [];
    defaultStatefulSet(object);
    // PrepareForCreate: the status is the controller's, empty until it writes one.
    if (old === undefined) object['status'] = { replicas: 0, availableReplicas: 0 };
    return [];
  },
  validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
    const causes = specCauses(record(object['spec']));
    if (old !== undefined && !jsonEqual(frozenSpec(object['spec']), frozenSpec(old['spec']))) causes.push(forbiddenValue('spec', IMMUTABLE_SPEC_MESSAGE));
    return causes;
  },
});
