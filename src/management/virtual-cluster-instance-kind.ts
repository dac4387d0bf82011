import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { COMMON_SCHEMAS, type KindDefinition, type KindProcedure, type KindSchema, type SchemaObject } from '../apiserver/index.js';
import { managementGroup, MANAGEMENT_VERSION, MIN_CERTIFICATE_TTL_SECONDS } from './management-constants.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** The OpenAPI v3 schema of VirtualClusterInstanceKubeConfig in `group`. */
function kubeConfigSchema(group: string): KindSchema {
  const name = `${group.split('.').reverse().join('.')}.${MANAGEMENT_VERSION}.VirtualClusterInstanceKubeConfig`;
  const schema: SchemaObject = {
    type: 'object',
    description: 'VirtualClusterInstanceKubeConfig asks for a kube config of a virtual cluster instance; the create answers it in status.kubeConfig. Never stored.',
    properties: {
      apiVersion: { type: 'string', description: 'Versioned schema of the representation.' },
      kind: { type: 'string', description: 'The kind, VirtualClusterInstanceKubeConfig.' },
      metadata: { $ref: `#/components/schemas/${META}.ObjectMeta` },
      spec: {
        type: 'object',
        description: 'What kube config is asked for.',
        properties: {
          certificateTTL: {
            type: 'integer',
            format: 'int32',
            description: 'Seconds of validity of the client certificate (clientCert: true). Absent: 86400. 0: none requested, the signer\'s default applies. At least 600 otherwise.',
          },
          server: { type: 'string', description: 'Overrides the server address in the kube config (default: the virtual cluster\'s ingress host).' },
          clientCert: { type: 'boolean', description: 'If true, the kube config holds a fresh client certificate and key instead of a token.' },
        },
      },
      status: { type: 'object', description: 'The kube config.', properties: { kubeConfig: { type: 'string', description: 'The kube config as YAML text.' } } },
    },
    'x-kubernetes-group-version-kind': [{ group, version: MANAGEMENT_VERSION, kind: 'VirtualClusterInstanceKubeConfig' }],
  };
  return { name, components: { ...COMMON_SCHEMAS, [name]: schema } };
}

/** `certificateTTL` 0 or at least 600 seconds (what a CertificateSigningRequest accepts); `server` an https or http URL. */
function validate(object: JsonObject): StatusCause[] {
  const spec = isJsonObject(object['spec']) ? object['spec'] : {};
  const causes: StatusCause[] = [];
  const ttl = spec['certificateTTL'];
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || (ttl > 0 && ttl < MIN_CERTIFICATE_TTL_SECONDS))) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.certificateTTL',
      message: `Invalid value: ${JSON.stringify(ttl)}: a number of seconds, 0 (the signer's default) or at least ${MIN_CERTIFICATE_TTL_SECONDS} (the shortest certificate a CertificateSigningRequest may ask for)`,
    });
  }
  const server = spec['server'];
  if (server !== undefined && server !== null && server !== '') {
    let valid = typeof server === 'string';
    try {
      valid = valid && ['https:', 'http:'].includes(new URL(String(server)).protocol);
    } catch {
      valid = false;
    }
    if (!valid) causes.push({ reason: 'FieldValueInvalid', field: 'spec.server', message: `Invalid value: ${JSON.stringify(server)}: an https:// URL, e.g. https://vc1.example.com` });
  }
  const clientCert = spec['clientCert'];
  if (clientCert !== undefined && clientCert !== null && typeof clientCert !== 'boolean') {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.clientCert', message: `Invalid value: ${JSON.stringify(clientCert)}: true or false` });
  }
  return causes;
}

/**
 * `virtualclusterinstances` (namespaced, no verbs of its own) with the action `kubeconfig`
 * (as the Platform's): a POST of a VirtualClusterInstanceKubeConfig to
 * `namespaces/<namespace>/virtualclusterinstances/<name>/kubeconfig` answers it with
 * `status.kubeConfig` from `issue`.
 */
export function virtualClusterInstanceKind(options: { platform: string; issue: KindProcedure }): KindDefinition {
  const group = managementGroup(options.platform);
  return {
    group,
    version: MANAGEMENT_VERSION,
    kind: 'VirtualClusterInstance',
    plural: 'virtualclusterinstances',
    namespaced: true,
    verbs: [],
    actions: {
      kubeconfig: {
        kind: 'VirtualClusterInstanceKubeConfig',
        plural: 'virtualclusterinstances',
        schema: kubeConfigSchema(group),
        validatesSchemaTypes: true,
        strategy: { validate },
        procedure: options.issue,
      },
    },
  };
}
