/**
 * The strategies of Endpoints and EndpointSlices, as kube-apiserver's: their defaults and the
 * validation of addresses (IPs an endpoint may have, hostnames, node names) and ports.
 */
import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { dns1123LabelError, dns1123SubdomainError, invalidValue, type KindStrategy, labelKeyError, requiredValue } from '../apiserver/index.js';
import { endpointIpErrors, ipFamilyOf, ipSyntaxError, VALID_IP_EXAMPLE } from './endpoint-address.js';

function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validPort(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

function unsupportedProtocol(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: "${PROTOCOLS.join('", "')}"` };
}

function defaultEndpoints(object: JsonObject): void {
  if (!Array.isArray(object['subsets'])) return;
  object['subsets'] = objects(object['subsets']).map((subset) => {
    if (!Array.isArray(subset['ports'])) return subset;
    return { ...subset, ports: objects(subset['ports']).map((port) => ({ ...port, protocol: port['protocol'] ?? 'TCP' })) };
  });
}

/** One address of a subset: its IP (syntax, then what an endpoint may not be), hostname, node name. */
function validateEndpointAddress(address: JsonObject, at: string, causes: StatusCause[]): void {
  const ip = typeof address['ip'] === 'string' ? address['ip'] : '';
  const syntax = ipSyntaxError(ip);
  if (syntax !== undefined) causes.push(invalidValue(`${at}.ip`, ip, syntax));
  const hostname = address['hostname'];
  if (typeof hostname === 'string' && hostname !== '') {
    const why = dns1123LabelError(hostname);
    if (why !== undefined) causes.push(invalidValue(`${at}.hostname`, hostname, why));
  }
  const nodeName = address['nodeName'];
  if (typeof nodeName === 'string') {
    const why = dns1123SubdomainError(nodeName);
    if (why !== undefined) causes.push(invalidValue(`${at}.nodeName`, nodeName, why));
  }
  for (const why of endpointIpErrors(ip)) causes.push(invalidValue(`${at}.ip`, ip, why));
}

/** One port of a subset; a name is required when the subset has several ports. */
function validateEndpointPort(port: JsonObject, at: string, requireName: boolean, causes: StatusCause[]): void {
  const name = typeof port['name'] === 'string' ? port['name'] : '';
  if (requireName && name === '') causes.push(requiredValue(`${at}.name`));
  else if (name !== '') {
    const why = dns1123LabelError(name);
    if (why !== undefined) causes.push(invalidValue(`${at}.name`, name, why));
  }
  if (!validPort(port['port'])) causes.push(invalidValue(`${at}.port`, port['port'] ?? 0, 'must be between 1 and 65535, inclusive'));
  if (!PROTOCOLS.includes(String(port['protocol']))) causes.push(unsupportedProtocol(`${at}.protocol`, port['protocol']));
  const appProtocol = port['appProtocol'];
  if (typeof appProtocol === 'string') {
    const why = labelKeyError(appProtocol);
    if (why !== undefined) causes.push(invalidValue(`${at}.appProtocol`, appProtocol, why));
  }
}

function validateEndpoints(object: JsonObject, causes: StatusCause[]): void {
  const subsets = object['subsets'];
  if (subsets === undefined || subsets === null) return;
  if (!Array.isArray(subsets)) {
    causes.push(invalidValue('subsets', subsets, 'must be a list'));
    return;
  }
  objects(subsets).forEach((subset, subsetIndex) => {
    const at = `subsets[${subsetIndex}]`;
    const addresses = objects(subset['addresses']);
    const notReady = objects(subset['notReadyAddresses']);
    if (addresses.length === 0 && notReady.length === 0) causes.push(requiredValue(at, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((address, index) => validateEndpointAddress(address, `${at}.addresses[${index}]`, causes));
    notReady.forEach((address, index) => validateEndpointAddress(address, `${at}.notReadyAddresses[${index}]`, causes));
    const ports = objects(subset['ports']);
    ports.forEach((port, index) => validateEndpointPort(port, `${at}.ports[${index}]`, ports.length > 1, causes));
  });
}

/** Defaults of an EndpointSlice: conditions `{}`, port name `""` and protocol TCP; absent lists are `null`. */
function defaultEndpointSlice(object: JsonObject): void {
  const endpoints = object['endpoints'];
  const ports = object['ports'];
  // Both lists are serialised without omitempty: absent reads back as null.
  object['endpoints'] = Array.isArray(endpoints) ? endpoints.map((endpoint: unknown) => (isJsonObject(endpoint) ? { ...endpoint, conditions: endpoint['conditions'] ?? {} } : endpoint)) : (endpoints ?? null);
  object['ports'] = Array.isArray(ports) ? ports.map((port: unknown) => (isJsonObject(port) ? { ...port, name: port['name'] ?? '', protocol: port['protocol'] ?? 'TCP' } : port)) : (ports ?? null);
}

/** Why `address` is not an address of `addressType`, every reason; empty when it is one. */
function sliceAddressErrors(address: string, addressType: unknown): string[] {
  if (addressType === 'FQDN') {
    const why = dns1123SubdomainError(address);
    return why === undefined ? [] : [why];
  }
  const family = addressType === 'IPv4' ? 4 : addressType === 'IPv6' ? 6 : undefined;
  if (family === undefined) return [];
  const syntax = ipSyntaxError(address);
  if (syntax !== undefined) return [syntax];
  if (ipFamilyOf(address) !== family) return [family === 4 ? 'must be a valid IPv4 address' : 'must be a valid IPv6 address'];
  return endpointIpErrors(address);
}

function validateEndpointSlice(object: JsonObject, causes: StatusCause[]): void {
  const addressType = object['addressType'];
  if (!['IPv4', 'IPv6', 'FQDN'].includes(String(addressType))) causes.push({ reason: 'FieldValueNotSupported', field: 'addressType', message: `Unsupported value: ${JSON.stringify(addressType)}: supported values: "FQDN", "IPv4", "IPv6"` });
  objects(object['endpoints']).forEach((endpoint, index) => {
    const addresses = endpoint['addresses'];
    if (!Array.isArray(addresses) || addresses.length === 0) causes.push(requiredValue(`endpoints[${index}].addresses`, 'must contain at least 1 address'));
    else {
      addresses.forEach((address: unknown, addressIndex) => {
        const text = typeof address === 'string' ? address : '';
        const errors = typeof address === 'string' ? sliceAddressErrors(text, addressType) : [VALID_IP_EXAMPLE];
        for (const why of errors) causes.push(invalidValue(`endpoints[${index}].addresses[${addressIndex}]`, text, why));
      });
    }
  });
  const names = new Set<string>();
  objects(object['ports']).forEach((port, index) => {
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (name !== '') {
      const why = dns1123LabelError(name);
      if (why !== undefined) causes.push(invalidValue(`ports[${index}].name`, name, why));
    }
    if (names.has(name)) causes.push({ reason: 'FieldValueDuplicate', field: `ports[${index}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    names.add(name);
    if (port['port'] !== undefined && port['port'] !== null && !validPort(port['port'])) causes.push(invalidValue(`ports[${index}].port`, port['port'], 'must be between 1 and 65535, inclusive'));
  });
}

/**
 * Endpoints: port protocols default to TCP; every subset has an address; addresses are IPs an
 * endpoint may have (not loopback, link-local, unspecified), hostnames DNS labels, node names DNS
 * subdomains; ports in range with a known protocol, named when a subset has several.
 */
export const ENDPOINTS_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    defaultEndpoints(object);
    return [];
  },
  validate(object: JsonObject): StatusCause[] {
    const causes: StatusCause[] = [];
    validateEndpoints(object, causes);
    return causes;
  },
});

/**
 * EndpointSlices: conditions, port names and protocols defaulted; a known address type; at least
 * one address per endpoint, each of the slice's type; port names unique DNS labels, ports in range;
 * the address type immutable.
 */
export const ENDPOINT_SLICE_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    defaultEndpointSlice(object);
    return [];
  },
  validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
    const causes: StatusCause[] = [];
    // A slice's address type never changes: a client replaces the slice instead.
    if (old !== undefined && object['addressType'] !== old['addressType']) causes.push(invalidValue('addressType', object['addressType'], 'field is immutable'));
    validateEndpointSlice(object, causes);
    return causes;
  },
});
