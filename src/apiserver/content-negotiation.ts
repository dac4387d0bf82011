import { ApiError } from './api-error.js';

/**
 * The representations the core can answer: plain JSON, YAML, a meta.k8s.io/v1 Table,
 * PartialObjectMetadata(List), and aggregated discovery (apidiscovery.k8s.io v2 / v2beta1).
 */
export type Representation = 'json' | 'yaml' | 'table' | 'partial' | 'discovery-v2' | 'discovery-v2beta1';

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  return accept.split(',').map((entry) => {
    const [type = '', ...rawParams] = entry.split(';').map((part) => part.trim());
    const params = new Map<string, string>();
    for (const param of rawParams) {
      const [key = '', value = ''] = param.split('=').map((part) => part.trim());
      if (key !== '') params.set(key.toLowerCase(), value);
    }
    return { type: type.toLowerCase(), params };
  });
}

function representationOf(range: MediaRange): Representation | undefined {
  const as = range.params.get('as');
  const isJson = range.type === 'application/json' || range.type === 'application/*' || range.type === '*/*';
  if (!isJson) return range.type === 'application/yaml' && as === undefined ? 'yaml' : undefined;
  if (as === undefined) return 'json';
  const group = range.params.get('g');
  const version = range.params.get('v');
  if (as === 'Table' && group === 'meta.k8s.io' && (version === 'v1' || version === 'v1beta1')) return 'table';
  if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && group === 'meta.k8s.io' && version === 'v1') return 'partial';
  if (as === 'APIGroupDiscoveryList' && group === 'apidiscovery.k8s.io') {
    if (version === 'v2') return 'discovery-v2';
    if (version === 'v2beta1') return 'discovery-v2beta1';
  }
  return undefined;
}

/**
 * Picks the first representation of the Accept header (in the client's order, as client-go
 * lists its preferences) that the endpoint supports. No Accept header means JSON. Throws 406
 * NotAcceptable when nothing acceptable is supported (e.g. protobuf only).
 */
export function negotiate(accept: string | undefined, supported: readonly Representation[]): Representation {
  if (accept === undefined || accept.trim() === '') return 'json';
  for (const range of parseAccept(accept)) {
    const representation = representationOf(range);
    if (representation !== undefined && supported.includes(representation)) return representation;
  }
  throw new ApiError('NotAcceptable', `only the following media types are accepted: application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io`);
}
