import type { StoredObject } from './storage/types.js';

/** A cell value of a meta.k8s.io/v1 Table row. */
export type TableCell = string | number;

/** One column of a kind's Table view, like the printers of the real API server. */
export interface TableColumn {
  /** Column name as the server sends it (kubectl upper-cases it). */
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  /** `name` for the NAME column, '' otherwise. */
  readonly format: string;
  readonly description: string;
  /** 0 = always shown; 1 = only with `-o wide`. */
  readonly priority: number;
  /** The cell of one object; `nowMs` is the wall clock in ms (for ages). */
  cell(object: StoredObject, nowMs: number): TableCell;
}

/**
 * Formats an age like Kubernetes' `duration.HumanDuration`: `45s`, `5m3s`, `3h20m`, `12d`, `2y30d`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown, fallback = '<none>'): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function age(object: StoredObject, nowMs: number): string {
  const created = object.metadata['creationTimestamp'];
  if (typeof created !== 'string') return '<unknown>';
  const at = Date.parse(created);
  return Number.isNaN(at) ? '<unknown>' : humanDuration(nowMs - at);
}

const NAME: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (object) => object.metadata.name,
};

const AGE: TableColumn = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: age,
};

function column(name: string, description: string, cell: TableColumn['cell'], options: { type?: TableColumn['type']; priority?: number } = {}): TableColumn {
  return { name, type: options.type ?? 'string', format: '', description, priority: options.priority ?? 0, cell };
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

function countKeys(value: unknown): number {
  return Object.keys(record(value)).length;
}

/** The Table columns of each kind, keyed by kind. Kinds not listed show NAME and AGE. */
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
});

/** The columns of a kind; NAME and AGE for kinds without their own printer. */
export function columnsFor(kind: string): readonly TableColumn[] {
  return TABLE_COLUMNS[kind] ?? [NAME, AGE];
}
