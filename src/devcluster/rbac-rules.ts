/**
 * The strategies of the RBAC kinds (rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding), as kube-apiserver's validation of them (pkg/apis/rbac/validation): rules
 * name verbs and what they apply to, a binding's roleRef names a role of the right kind and never
 * changes, subjects are ServiceAccounts, Users or Groups. The devcluster stores these objects;
 * its authorizer does not read them (README "Limits").
 */
import { isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { dns1123SubdomainError, invalidValue, type KindStrategy, nameError, notSupportedValue, requiredValue } from '../apiserver/index.js';

/** The RBAC API group: a binding's roleRef and a User or Group subject name it. */
const RBAC_GROUP = 'rbac.authorization.k8s.io';

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `ValidatePolicyRule`: verbs, and either non-resource URLs (cluster roles only) or API groups and resources. */
function ruleCauses(rule: unknown, field: string, namespaced: boolean): StatusCause[] {
  const fields = isJsonObject(rule) ? rule : {};
  const causes: StatusCause[] = [];
  if (list(fields['verbs']).length === 0) causes.push(requiredValue(`${field}.verbs`, 'verbs must contain at least one value'));
  const urls = list(fields['nonResourceURLs']);
  if (urls.length > 0) {
    if (namespaced) causes.push(invalidValue(`${field}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (list(fields['apiGroups']).length > 0 || list(fields['resources']).length > 0 || list(fields['resourceNames']).length > 0) {
      causes.push(invalidValue(`${field}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if (list(fields['apiGroups']).length === 0) causes.push(requiredValue(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  if (list(fields['resources']).length === 0) causes.push(requiredValue(`${field}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}

function roleStrategy(namespaced: boolean): KindStrategy {
  return Object.freeze({
    validate(object: JsonObject): StatusCause[] {
      return list(object['rules']).flatMap((rule, index) => ruleCauses(rule, `rules[${index}]`, namespaced));
    },
  });
}

/** Roles: every rule has verbs and resources in API groups; no non-resource URLs. */
export const ROLE_STRATEGY: KindStrategy = roleStrategy(true);

/** ClusterRoles: every rule has verbs and either resources in API groups or non-resource URLs. */
export const CLUSTER_ROLE_STRATEGY: KindStrategy = roleStrategy(false);

/** `SetDefaults_RoleBinding` and `SetDefaults_Subject`: roleRef and User/Group subjects in the RBAC group. */
function defaultBinding(object: JsonObject): void {
  const roleRef = isJsonObject(object['roleRef']) ? object['roleRef'] : {};
  object['roleRef'] = { ...roleRef, apiGroup: text(roleRef['apiGroup']) === '' ? RBAC_GROUP : roleRef['apiGroup'] };
  if (!Array.isArray(object['subjects'])) return;
  object['subjects'] = object['subjects'].map((subject: unknown) => {
    if (!isJsonObject(subject) || text(subject['apiGroup']) !== '' || (subject['kind'] !== 'User' && subject['kind'] !== 'Group')) return subject;
    return { ...subject, apiGroup: RBAC_GROUP };
  });
}

/** `ValidateRoleBindingSubject`: a named ServiceAccount (with a namespace in a cluster binding), User or Group. */
function subjectCauses(subject: unknown, field: string, namespaced: boolean): StatusCause[] {
  const fields = isJsonObject(subject) ? subject : {};
  const causes: StatusCause[] = [];
  const name = text(fields['name']);
  if (name === '') causes.push(requiredValue(`${field}.name`));
  const apiGroup = text(fields['apiGroup']);
  switch (fields['kind']) {
    case 'ServiceAccount': {
      const why = name === '' ? undefined : dns1123SubdomainError(name);
      if (why !== undefined) causes.push(invalidValue(`${field}.name`, name, why));
      if (apiGroup !== '') causes.push(notSupportedValue(`${field}.apiGroup`, apiGroup, ['']));
      if (!namespaced && text(fields['namespace']) === '') causes.push(requiredValue(`${field}.namespace`));
      break;
    }
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) causes.push(notSupportedValue(`${field}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      causes.push(notSupportedValue(`${field}.kind`, fields['kind'] ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}

function bindingStrategy(namespaced: boolean): KindStrategy {
  const roleKinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  return Object.freeze({
    prepareForWrite(object: JsonObject): StatusCause[] {
      defaultBinding(object);
      return [];
    },
    validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
      const roleRef = isJsonObject(object['roleRef']) ? object['roleRef'] : {};
      const causes: StatusCause[] = [];
      if (roleRef['apiGroup'] !== RBAC_GROUP) causes.push(notSupportedValue('roleRef.apiGroup', roleRef['apiGroup'] ?? '', [RBAC_GROUP]));
      if (!roleKinds.includes(text(roleRef['kind']))) causes.push(notSupportedValue('roleRef.kind', roleRef['kind'] ?? '', roleKinds));
      const name = text(roleRef['name']);
      const why = name === '' ? undefined : nameError('path-segment', name);
      if (name === '') causes.push(requiredValue('roleRef.name'));
      else if (why !== undefined) causes.push(invalidValue('roleRef.name', name, why));
      list(object['subjects']).forEach((subject, index) => causes.push(...subjectCauses(subject, `subjects[${index}]`, namespaced)));
      if (old !== undefined && !jsonEqual(object['roleRef'], old['roleRef'])) causes.push(invalidValue('roleRef', object['roleRef'], 'cannot change roleRef'));
      return causes;
    },
  });
}

/** RoleBindings: roleRef names a Role or ClusterRole and is immutable; subjects are checked. */
export const ROLE_BINDING_STRATEGY: KindStrategy = bindingStrategy(true);

/** ClusterRoleBindings: roleRef names a ClusterRole and is immutable; ServiceAccount subjects name their namespace. */
export const CLUSTER_ROLE_BINDING_STRATEGY: KindStrategy = bindingStrategy(false);
