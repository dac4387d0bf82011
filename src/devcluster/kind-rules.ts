import { isIP } from 'node:net';
import type { StatusCause } from '../apiserver/api-error.js';
import type { JsonObject, KindStrategy } from '../apiserver/kind-strategy.js';
import { invalidValue, requiredValue } from '../apiserver/metadata-validation.js';
import { allocateClusterIp, inServiceRange, type ClusterIpIndex } from './cluster-ip-allocator.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** What the Service rules need from the server besides the object itself. */
interface ServiceRuleContext {
  /** Whether a stored Service (any namespace), or one being written, holds this cluster IP. */
  isClusterIpTaken(ip: string): boolean;
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

function validPort(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

function defaultService(object: JsonObject, old: JsonObject | undefined, context: ServiceRuleContext, causes: StatusCause[]): void {
  const spec: JsonObject = isObject(object['spec']) ? { ...object['spec'] } : {};
  const oldSpec = old !== undefined && isObject(old['spec']) ? old['spec'] : undefined;
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  const ports = objects(spec['ports']).map((port) => {
    const defaulted: JsonObject = { ...port };
    defaulted['protocol'] ??= 'TCP';
    defaulted['targetPort'] ??= defaulted['port'];
    return defaulted;
  });
  if (spec['ports'] !== undefined) spec['ports'] = ports;
  if (spec['type'] !== 'ExternalName') {
    const oldIp = oldSpec?.['clusterIP'];
    if ((spec['clusterIP'] === undefined || spec['clusterIP'] === '') && typeof oldIp === 'string' && oldIp !== '') spec['clusterIP'] = oldIp;
    const requested = spec['clusterIP'];
    if (typeof oldIp === 'string' && oldIp !== '' && requested !== oldIp) {
      causes.push(invalidValue('spec.clusterIP', requested, 'field is immutable'));
    } else if (requested === undefined || requested === '') {
      const allocated = allocateClusterIp((ip) => context.isClusterIpTaken(ip));
      if (allocated === undefined) causes.push(invalidValue('spec.clusterIP', '', 'range is full'));
      else spec['clusterIP'] = allocated;
    } else if (requested !== 'None' && oldIp !== requested) {
      if (typeof requested !== 'string' || !inServiceRange(requested)) {
        causes.push(invalidValue('spec.clusterIP', requested, 'provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12'));
      } else if (context.isClusterIpTaken(requested)) {
        causes.push(invalidValue('spec.clusterIP', requested, 'provided IP is already allocated'));
      }
    }
    if (typeof spec['clusterIP'] === 'string') spec['clusterIPs'] = [spec['clusterIP']];
    spec['ipFamilies'] ??= ['IPv4'];
    spec['ipFamilyPolicy'] ??= 'SingleStack';
    spec['internalTrafficPolicy'] ??= 'Cluster';
  }
  object['spec'] = spec;
  if (!isObject(object['status'])) object['status'] = { loadBalancer: {} };
}

function validateService(object: JsonObject, causes: StatusCause[]): void {
  const spec = isObject(object['spec']) ? object['spec'] : {};
  if (!SERVICE_TYPES.includes(String(spec['type']))) causes.push({ reason: 'FieldValueNotSupported', field: 'spec.type', message: `Unsupported value: ${JSON.stringify(spec['type'])}: supported values: "${SERVICE_TYPES.join('", "')}"` });
  const ports = objects(spec['ports']);
  if (spec['type'] !== 'ExternalName' && spec['clusterIP'] !== 'None' && ports.length === 0) causes.push(requiredValue('spec.ports'));
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const at = `spec.ports[${index}]`;
    if (!validPort(port['port'])) causes.push(invalidValue(`${at}.port`, port['port'], 'must be between 1 and 65535, inclusive'));
    if (!PROTOCOLS.includes(String(port['protocol']))) causes.push({ reason: 'FieldValueNotSupported', field: `${at}.protocol`, message: `Unsupported value: ${JSON.stringify(port['protocol'])}: supported values: "SCTP", "TCP", "UDP"` });
    const name = port['name'];
    if (ports.length > 1 && (typeof name !== 'string' || name === '')) causes.push(requiredValue(`${at}.name`));
    if (typeof name === 'string' && name !== '') {
      if (names.has(name)) causes.push({ reason: 'FieldValueDuplicate', field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(name)}` });
      names.add(name);
    }
  });
}

/**
 * The Service rules: defaults (type, session affinity, port protocol and targetPort, IP family),
 * cluster IP allocation from the service range (kept on update: it is immutable), validation of
 * type and ports. A cluster IP is held from defaulting until its write settled, so two concurrent
 * creates never get the same address; `clusterIps` knows the addresses stored Services hold.
 */
export function serviceStrategy(clusterIps: ClusterIpIndex): KindStrategy {
  const pending = new Set<string>();
  const context: ServiceRuleContext = { isClusterIpTaken: (ip) => pending.has(ip) || clusterIps.has(ip) };
  return {
    prepareForWrite(object, old) {
      const causes: StatusCause[] = [];
      defaultService(object, old, context, causes);
      return causes;
    },
    validate(object) {
      const causes: StatusCause[] = [];
      validateService(object, causes);
      return causes;
    },
    reserve(object) {
      // Durable stores commit later than the write starts: the address counts as taken meanwhile.
      const ip = isObject(object['spec']) ? object['spec']['clusterIP'] : undefined;
      if (typeof ip !== 'string' || ip === 'None') return undefined;
      pending.add(ip);
      return () => pending.delete(ip);
    },
  };
}

/** Pods: status.phase defaults to Pending. */
export const POD_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    const status = isObject(object['status']) ? object['status'] : {};
    object['status'] = { ...status, phase: status['phase'] ?? 'Pending' };
    return [];
  },
});

/** Namespaces' defaults: status.phase Active (kept when set), an empty spec. */
export function defaultNamespace(object: JsonObject): void {
  const status = isObject(object['status']) ? object['status'] : {};
  object['status'] = { ...status, phase: status['phase'] ?? 'Active' };
  object['spec'] ??= {};
}
