import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { COMMON_SCHEMAS, type KindDefinition, type KindProcedure, type KindSchema, type SchemaObject } from '../apiserver/index.js';
import { validateAccessScope } from './access-scope.js';
import { managementGroup, MANAGEMENT_VERSION } from './management-constants.js';
import { ACCESS_SCOPE_SCHEMA } from './owned-access-key-schema.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** The OpenAPI v3 schema of DirectClusterEndpointToken in `group`. */
function directClusterEndpointTokenSchema(group: string): KindSchema {
  const name = `${group.split('.').reverse().join('.')}.${MANAGEMENT_VERSION}.DirectClusterEndpointToken`;
  const schema: SchemaObject = {
    type: 'object',
    description: 'DirectClusterEndpointToken is a short-lived signed token (JWT) for a direct cluster endpoint, issued to the caller on create and never stored.',
    properties: {
      apiVersion: { type: 'string', description: 'Versioned schema of the representation.' },
      kind: { type: 'string', description: 'The kind, DirectClusterEndpointToken.' },
      metadata: { $ref: `#/components/schemas/${META}.ObjectMeta` },
      spec: {
        type: 'object',
        description: 'What token is asked for.',
        properties: {
          ttl: { type: 'integer', format: 'int64', description: 'Time to live of the token in seconds; absent or 0: the default (1 hour); more than the maximum (1 day): the maximum.' },
          scope: { ...ACCESS_SCOPE_SCHEMA, description: 'What the token may reach; absent: what the access key it is requested with reaches. Never more than that.' },
        },
      },
      status: { type: 'object', description: 'The issued token.', properties: { token: { type: 'string', description: 'The token, a signed JWT.' } } },
    },
    'x-kubernetes-group-version-kind': [{ group, version: MANAGEMENT_VERSION, kind: 'DirectClusterEndpointToken' }],
  };
  return { name, components: { ...COMMON_SCHEMAS, [name]: schema } };
}

/** `spec.ttl` a number of seconds (0 or more), `spec.scope` a valid scope. */
function validate(object: JsonObject): StatusCause[] {
  const spec = isJsonObject(object['spec']) ? object['spec'] : {};
  const causes: StatusCause[] = [];
  const ttl = spec['ttl'];
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.ttl', message: `Invalid value: ${JSON.stringify(ttl)}: spec.ttl is a number of seconds, 0 or more` });
  }
  causes.push(...validateAccessScope(spec['scope'], 'spec.scope'));
  return causes;
}

/**
 * DirectClusterEndpointToken (as the vCluster Platform defines it), cluster-scoped
 * `directclusterendpointtokens` in `management.<platform>.sh/v1`: create only, never stored; the
 * create answers the object with `status.token` from `issue`.
 */
export function directClusterEndpointTokenKind(options: { platform: string; issue: KindProcedure }): KindDefinition {
  const group = managementGroup(options.platform);
  return {
    group,
    version: MANAGEMENT_VERSION,
    kind: 'DirectClusterEndpointToken',
    plural: 'directclusterendpointtokens',
    namespaced: false,
    schema: directClusterEndpointTokenSchema(group),
    validatesSchemaTypes: true,
    strategy: { validate },
    procedure: options.issue,
  };
}
