import { AGE_COLUMN as AGE, humanDuration, NAME_COLUMN as NAME, type StoredObject, type TableColumn, tableColumn as column } from '../apiserver/index.js';

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown, fallback = '<none>'): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function servicePorts(object: StoredObject): string {
  const ports = array(record(object['spec'])['ports']).map((entry) => {
    const port = record(entry);
    const protocol = text(port['protocol'], 'TCP');
    const nodePort = typeof port['nodePort'] === 'number' ? `:${port['nodePort']}` : '';
    return `${String(port['port'])}${nodePort}/${protocol}`;
  });
  return ports.length === 0 ? '<none>' : ports.join(',');
}

function endpointsList(object: StoredObject): string {
  const pairs: string[] = [];
  for (const subset of array(object['subsets'])) {
    const addresses = array(record(subset)['addresses']).map((address) => text(record(address)['ip'], ''));
    const ports = array(record(subset)['ports']).map((port) => record(port)['port']);
    for (const ip of addresses) {
      if (ports.length === 0) pairs.push(ip);
      for (const port of ports) pairs.push(`${ip}:${String(port)}`);
    }
  }
  if (pairs.length === 0) return '<none>';
  return pairs.length > 3 ? `${pairs.slice(0, 3).join(',')} + ${pairs.length - 3} more...` : pairs.join(',');
}

function selectorText(selector: unknown): string {
  const entries = Object.entries(record(selector)).map(([key, value]) => `${key}=${String(value)}`);
  return entries.length === 0 ? '<none>' : entries.join(',');
}

function podReady(object: StoredObject): string {
  const containers = array(record(object['spec'])['containers']).length;
  const ready = array(record(object['status'])['containerStatuses']).filter((status) => record(status)['ready'] === true).length;
  return `${ready}/${containers}`;
}

function podRestarts(object: StoredObject): number {
  return array(record(object['status'])['containerStatuses']).reduce<number>((sum, status) => {
    const count = record(status)['restartCount'];
    return sum + (typeof count === 'number' ? count : 0);
  }, 0);
}

/** A CSR's CONDITION column: its condition types (`Approved,Issued` once signed), or `Pending`. */
function requestCondition(object: StoredObject): string {
  const status = record(object['status']);
  const types = array(status['conditions']).map((condition) => text(record(condition)['type'], ''));
  if (typeof status['certificate'] === 'string' && status['certificate'] !== '') types.push('Issued');
  return types.length === 0 ? 'Pending' : types.join(',');
}

function countKeys(value: unknown): number {
  return Object.keys(record(value)).length;
}

/** A RoleBinding's or ClusterRoleBinding's subjects of `kind`, as `kubectl get -o wide` lists them. */
function subjectsOf(object: StoredObject, kind: string): string {
  return array(object['subjects'])
    .map(record)
    .filter((subject) => subject['kind'] === kind)
    .map((subject) => (kind === 'ServiceAccount' ? `${text(subject['namespace'], '')}/${text(subject['name'], '')}` : text(subject['name'], '')))
    .join(', ');
}

/** The columns of RoleBindings and ClusterRoleBindings. */
const BINDING_COLUMNS: readonly TableColumn[] = [
  NAME,
  column('Role', 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.', (o) => {
    const roleRef = record(o['roleRef']);
    return `${text(roleRef['kind'], '')}/${text(roleRef['name'], '')}`;
  }),
  AGE,
  column('Users', 'Users in the roleBinding', (o) => subjectsOf(o, 'User'), { priority: 1 }),
  column('Groups', 'Groups in the roleBinding', (o) => subjectsOf(o, 'Group'), { priority: 1 }),
  column('ServiceAccounts', 'ServiceAccounts in the roleBinding', (o) => subjectsOf(o, 'ServiceAccount'), { priority: 1 }),
];

/** The columns of Roles and ClusterRoles: the creation time as RFC 3339, not an age. */
const ROLE_COLUMNS: readonly TableColumn[] = [
  NAME,
  column('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', (o) => text(o.metadata['creationTimestamp'], ''), { type: 'date' }),
];

/** The names (or images) of a StatefulSet's template containers, comma-separated. */
function templateContainers(object: StoredObject, field: 'name' | 'image'): string {
  const podSpec = record(record(record(object['spec'])['template'])['spec']);
  return array(podSpec['containers']).map((container) => text(record(container)[field], '')).join(',');
}

/** The Table columns of the core kinds, keyed by kind, as the real server's printers show them. */
export const TABLE_COLUMNS: Readonly<Record<string, readonly TableColumn[]>> = Object.freeze({
  Namespace: [NAME, column('Status', 'The status of the namespace', (o) => text(record(o['status'])['phase'], 'Active')), AGE],
  Service: [
    NAME,
    column('Type', 'Type of the service', (o) => text(record(o['spec'])['type'], 'ClusterIP')),
    column('Cluster-IP', 'Cluster IP of the service', (o) => text(record(o['spec'])['clusterIP'])),
    column('External-IP', 'External IPs of the service', (o) => {
      const ips = array(record(o['spec'])['externalIPs']).map((ip) => String(ip));
      return ips.length === 0 ? '<none>' : ips.join(',');
    }),
    column('Port(s)', 'Ports of the service', servicePorts),
    AGE,
    column('Selector', 'Selector of the service', (o) => selectorText(record(o['spec'])['selector']), { priority: 1 }),
  ],
  Endpoints: [NAME, column('Endpoints', 'Endpoints of the object', endpointsList), AGE],
  Pod: [
    NAME,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.', podReady),
    column('Status', 'The aggregate status of the containers in this pod.', (o) => text(record(o['status'])['phase'], 'Pending')),
    column('Restarts', 'The number of times the containers in this pod have been restarted.', podRestarts, { type: 'integer' }),
    AGE,
    column('IP', 'The IP address assigned to the pod', (o) => text(record(o['status'])['podIP']), { priority: 1 }),
  ],
  Secret: [
    NAME,
    column('Type', 'The type of the secret', (o) => text(o['type'], 'Opaque')),
    column('Data', 'The number of entries in the secret', (o) => countKeys(o['data']), { type: 'integer' }),
    AGE,
  ],
  ConfigMap: [NAME, column('Data', 'The number of entries', (o) => countKeys(o['data']) + countKeys(o['binaryData']), { type: 'integer' }), AGE],
  Event: [
    NAME,
    column('Type', 'Type of this event', (o) => text(o['type'], '')),
    column('Reason', 'Short, machine understandable string for the transition', (o) => text(o['reason'], '')),
    column('Object', 'The object this event is about', (o) => {
      const involved = record(o['involvedObject']);
      return `${text(involved['kind'], '').toLowerCase()}/${text(involved['name'], '')}`;
    }),
    column('Message', 'A human-readable description of the status of this operation', (o) => text(o['message'], '')),
    AGE,
  ],
  CertificateSigningRequest: [
    NAME,
    AGE,
    column('SignerName', 'Requested signer for the request.', (o) => text(record(o['spec'])['signerName'])),
    column('Requestor', 'Name of the user that created the request.', (o) => text(record(o['spec'])['username'])),
    column('RequestedDuration', 'Requested duration of the issued certificate.', (o) => {
      const seconds = record(o['spec'])['expirationSeconds'];
      return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
    }),
    column('Condition', 'Conditions applied to the request.', requestCondition),
  ],
  ServiceAccount: [NAME, column('Secrets', 'Number of secrets', (o) => array(o['secrets']).length, { type: 'integer' }), AGE],
  Lease: [NAME, column('Holder', 'The holder of the lease', (o) => text(record(o['spec'])['holderIdentity'], '')), AGE],
  EndpointSlice: [
    NAME,
    column('AddressType', 'The type of addresses', (o) => text(o['addressType'], '')),
    column('Ports', 'Ports of the slice', (o) => {
      const ports = array(o['ports']).map((port) => String(record(port)['port']));
      return ports.length === 0 ? '<unset>' : ports.join(',');
    }),
    column('Endpoints', 'Addresses of the slice', (o) => {
      const addresses = array(o['endpoints']).flatMap((endpoint) => array(record(endpoint)['addresses']).map((a) => String(a)));
      if (addresses.length === 0) return '<unset>';
      return addresses.length > 3 ? `${addresses.slice(0, 3).join(',')} + ${addresses.length - 3} more...` : addresses.join(',');
    }),
    AGE,
  ],
  Role: ROLE_COLUMNS,
  ClusterRole: ROLE_COLUMNS,
  RoleBinding: BINDING_COLUMNS,
  ClusterRoleBinding: BINDING_COLUMNS,
  StatefulSet: [
    NAME,
    column('Ready', 'Number of the pod with ready state', (o) => `${Number(record(o['status'])['readyReplicas'] ?? 0)}/${Number(record(o['spec'])['replicas'] ?? 0)}`),
    AGE,
    column('Containers', 'Names of each container in the template.', (o) => templateContainers(o, 'name'), { priority: 1 }),
    column('Images', 'Images referenced by each container in the template.', (o) => templateContainers(o, 'image'), { priority: 1 }),
  ],
});
