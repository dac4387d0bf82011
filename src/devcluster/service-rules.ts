/**
 * The Service strategy, as kube-apiserver's: defaults (type, session affinity, port protocol and
 * targetPort, IP families), cluster IP allocation from the service range and its immutability,
 * validation of type, externalName and ports, with the cause paths the real server names.
 */
import { isIP } from 'node:net';
import { isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { dns1123SubdomainError, invalidValue, type KindStrategy, requiredValue } from '../apiserver/index.js';
import { allocateClusterIp, inServiceRange, type ClusterIpIndex } from './cluster-ip-allocator.js';
import { VALID_IP_EXAMPLE } from './endpoint-address.js';

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
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

/**
 * Settles spec.clusterIP and spec.clusterIPs: a write that leaves them out keeps the stored ones,
 * one that changes only clusterIP moves clusterIPs with it, a new Service gets one allocated. The
 * causes name `spec.clusterIPs` as the real server does.
 */
function settleClusterIp(spec: JsonObject, oldSpec: JsonObject | undefined, context: ServiceRuleContext, causes: StatusCause[]): void {
  const oldIp = oldSpec?.['clusterIP'];
  const held = typeof oldIp === 'string' && oldIp !== '';
  if (held && isEmpty(spec['clusterIP'])) {
    spec['clusterIP'] = oldIp;
    if (isEmpty(spec['clusterIPs'])) spec['clusterIPs'] = oldSpec?.['clusterIPs'];
  } else if (held && spec['clusterIP'] !== oldIp && jsonEqual(spec['clusterIPs'], oldSpec?.['clusterIPs'])) {
    spec['clusterIPs'] = [spec['clusterIP']];
  }
  const listed = Array.isArray(spec['clusterIPs']) ? (spec['clusterIPs'] as unknown[]) : [];
  if (isEmpty(spec['clusterIP']) && listed.length > 0) spec['clusterIP'] = listed[0];
  const requested = spec['clusterIP'];
  if (listed.length > 0 && listed[0] !== requested) {
    causes.push(invalidValue('spec.clusterIPs', listed, 'first value must match `clusterIP`'));
    return;
  }
  if (held) {
    if (requested !== oldIp) causes.push(invalidValue('spec.clusterIPs[0]', [requested], 'may not change once set'));
  } else if (isEmpty(requested)) {
    const allocated = allocateClusterIp((ip) => context.isClusterIpTaken(ip));
    if (allocated === undefined) causes.push(invalidValue('spec.clusterIPs', [], 'failed to allocate a serviceIP: range is full'));
    else spec['clusterIP'] = allocated;
  } else if (requested !== 'None') {
    if (typeof requested !== 'string' || isIP(requested) === 0) {
      causes.push(invalidValue('spec.clusterIPs[0]', requested, VALID_IP_EXAMPLE));
    } else if (!inServiceRange(requested)) {
      causes.push(invalidValue('spec.clusterIPs', [requested], `failed to allocate IP ${requested}: the provided network does not match the current range`));
    } else if (context.isClusterIpTaken(requested)) {
      causes.push(invalidValue('spec.clusterIPs', [requested], `failed to allocate IP ${requested}: provided IP is already allocated`));
    }
  }
  if (typeof spec['clusterIP'] === 'string') spec['clusterIPs'] = [spec['clusterIP']];
}

/**
 * IP families: a single IPv4 stack, except for a headless Service without selector, which the real
 * server makes RequireDualStack with both families (its endpoints are whatever the user writes),
 * unless the request asked for SingleStack.
 */
function defaultIpFamilies(spec: JsonObject): void {
  const selector = spec['selector'];
  const selectorless = !isJsonObject(selector) || Object.keys(selector).length === 0;
  if (spec['clusterIP'] !== 'None' || !selectorless) {
    spec['ipFamilies'] ??= ['IPv4'];
    spec['ipFamilyPolicy'] ??= 'SingleStack';
    return;
  }
  const families = Array.isArray(spec['ipFamilies']) ? spec['ipFamilies'] : [];
  const first = families[0] === 'IPv6' ? 'IPv6' : 'IPv4';
  spec['ipFamilyPolicy'] ??= 'RequireDualStack';
  spec['ipFamilies'] = spec['ipFamilyPolicy'] === 'SingleStack' ? [first] : [first, first === 'IPv4' ? 'IPv6' : 'IPv4'];
}

/** The real server's scheme defaults of a Service (before the field manager records ownership). */
function defaultService(object: JsonObject): void {
  const spec: JsonObject = isJsonObject(object['spec']) ? { ...object['spec'] } : {};
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  const ports = objects(spec['ports']).map((port) => {
    const defaulted: JsonObject = { ...port };
    defaulted['protocol'] ??= 'TCP';
    defaulted['targetPort'] ??= defaulted['port'];
    return defaulted;
  });
  if (spec['ports'] !== undefined) spec['ports'] = ports;
  if (spec['type'] !== 'ExternalName') spec['internalTrafficPolicy'] ??= 'Cluster';
  object['spec'] = spec;
  if (!isJsonObject(object['status'])) object['status'] = { loadBalancer: {} };
}

/** What the real server's REST storage settles after the field manager: the cluster IP and the IP families. */
function allocateService(object: JsonObject, old: JsonObject | undefined, context: ServiceRuleContext, causes: StatusCause[]): void {
  const spec = isJsonObject(object['spec']) ? object['spec'] : {};
  if (spec['type'] === 'ExternalName') return;
  const oldSpec = old !== undefined && isJsonObject(old['spec']) ? old['spec'] : undefined;
  settleClusterIp(spec, oldSpec, context, causes);
  defaultIpFamilies(spec);
  object['spec'] = spec;
}

function validateService(object: JsonObject, causes: StatusCause[]): void {
  const spec = isJsonObject(object['spec']) ? object['spec'] : {};
  if (!SERVICE_TYPES.includes(String(spec['type']))) causes.push({ reason: 'FieldValueNotSupported', field: 'spec.type', message: `Unsupported value: ${JSON.stringify(spec['type'])}: supported values: "${SERVICE_TYPES.join('", "')}"` });
  if (spec['type'] === 'ExternalName') {
    // A trailing dot marks the name fully qualified; it is kept as written.
    const name = typeof spec['externalName'] === 'string' ? spec['externalName'].replace(/\.$/, '') : '';
    const why = name === '' ? undefined : dns1123SubdomainError(name);
    if (name === '') causes.push(requiredValue('spec.externalName'));
    else if (why !== undefined) causes.push(invalidValue('spec.externalName', spec['externalName'], why));
  }
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
 * The Service rules: defaults (type, session affinity, port protocol and targetPort), validation of
 * type and ports, then, after field ownership is recorded, the allocation of the cluster IP from
 * the service range (kept on update: it is immutable) and of the IP families. A cluster IP is held from its allocation until its write settled, so two concurrent
 * creates never get the same address; `clusterIps` knows the addresses stored Services hold.
 */
export function serviceStrategy(clusterIps: ClusterIpIndex): KindStrategy {
  const pending = new Set<string>();
  const context: ServiceRuleContext = { isClusterIpTaken: (ip) => pending.has(ip) || clusterIps.has(ip) };
  return {
    prepareForWrite(object) {
      defaultService(object);
      return [];
    },
    validate(object) {
      const causes: StatusCause[] = [];
      validateService(object, causes);
      return causes;
    },
    allocate(object, old) {
      const causes: StatusCause[] = [];
      allocateService(object, old, context, causes);
      return causes;
    },
    reserve(object) {
      // Durable stores commit later than the write starts: the address counts as taken meanwhile.
      const ip = isJsonObject(object['spec']) ? object['spec']['clusterIP'] : undefined;
      if (typeof ip !== 'string' || ip === 'None') return undefined;
      pending.add(ip);
      return () => pending.delete(ip);
    },
  };
}
