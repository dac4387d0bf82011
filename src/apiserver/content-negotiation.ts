import { ApiError } from '../apimachinery/index.js';

/**
 * The representations the core can answer: plain JSON, YAML, a meta.k8s.io/v1 Table,
 * PartialObjectMetadata(List), aggregated discovery (apidiscovery.k8s.io v2 / v2beta1), and the
 * OpenAPI v2 document as protobuf.
 */
export type Representation = 'json' | 'yaml' | 'table' | 'partial' | 'discovery-v2' | 'discovery-v2beta1' | 'openapi-v2-protobuf';

/**
 * The media type of `/openapi/v2` as protobuf (gnostic's `openapi.v2.Document`), as the real
 * server answers it. client-go asks for the older spelling with `@`, which the server also
 * accepts, but parses the answer's Content-Type with Go's mime package, which refuses the `@`.
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_REQUESTED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

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
  if (range.type === OPENAPI_V2_PROTOBUF || range.type === OPENAPI_V2_PROTOBUF_REQUESTED) return 'openapi-v2-protobuf';
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

/**
 * The media type of a request's body: the Content-Type's type, lower case, without parameters.
 * A request that sends no Content-Type is read as JSON, the first media type the server
 * supports, as the real server reads it (`kubectl create --raw -f` sends none), except a PATCH,
 * which must say which patch it is: '' there, which the handler answers 415.
 */
export function bodyMediaType(method: string, contentType: string | undefined): string {
  if (contentType === undefined) return method === 'PATCH' ? '' : 'application/json';
  return contentType.split(';')[0]?.trim().toLowerCase() ?? '';
}
