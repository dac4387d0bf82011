import { ApiError } from '../apimachinery/index.js';

/**
 * A decoder of one binary request media type into JSON objects, for the bodies of creates and
 * updates (the devcluster decodes kubectl's protobuf with one). JSON and YAML are the core's own.
 */
export interface BodyDecoder {
  /** e.g. `application/vnd.kubernetes.protobuf`. */
  readonly mediaType: string;
  /**
   * The JSON object of `body`. Throws an {@link ApiError}: 400 BadRequest for malformed bytes,
   * 415 UnsupportedMediaType for a kind or field it does not decode.
   */
  decode(body: Buffer): unknown;
}

/**
 * A body of a create or update that could not be decoded. The failure is kept rather than thrown
 * by the body parser so that the route answers first what it would answer for any body (404 for
 * a resource the server does not serve, 405 for a verb it does not allow); the resource handler
 * throws {@link failure} when the verb reads the body.
 */
export class UndecodableBody {
  /** 400 BadRequest (malformed bytes) or 415 UnsupportedMediaType (kind or field not decoded). */
  readonly failure: ApiError;

  constructor(failure: ApiError) {
    this.failure = failure;
  }
}

/**
 * The request body of a `decoder.mediaType` request, by HTTP method: for POST and PUT (create,
 * update) the decoded JSON object, or an {@link UndecodableBody}; for any other method the bytes
 * untouched, which the handler refuses with 415 (PATCH bodies and DeleteOptions are never
 * binary). Pure.
 */
export function decodeBody(decoder: BodyDecoder, method: string, body: Buffer): unknown {
  if (method !== 'POST' && method !== 'PUT') return body;
  try {
    return decoder.decode(body);
  } catch (error: unknown) {
    if (error instanceof ApiError) return new UndecodableBody(error);
    throw error;
  }
}
