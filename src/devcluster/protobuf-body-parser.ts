import { ApiError } from '../apiserver/api-error.js';
import { decodeKubernetesProtobuf } from './protobuf-object-decoder.js';

/**
 * A protobuf body of a create or update that could not be decoded. The failure is kept rather
 * than thrown by the body parser so that the route answers first what it would answer for any
 * body (404 for a resource the devcluster does not serve, 405 for a verb it does not allow); the
 * resource handler throws {@link failure} when the verb reads the body.
 */
export class UndecodableProtobufBody {
  /** 400 BadRequest (malformed bytes) or 415 UnsupportedMediaType (kind or field not decoded). */
  readonly failure: ApiError;

  constructor(failure: ApiError) {
    this.failure = failure;
  }
}

/**
 * The request body of an `application/vnd.kubernetes.protobuf` request, by HTTP method: for
 * POST and PUT (create, update) the decoded JSON object, or an {@link UndecodableProtobufBody};
 * for any other method the bytes untouched, which the handler refuses with 415 (PATCH bodies
 * and DeleteOptions are never protobuf). Pure.
 */
export function parseProtobufBody(method: string, body: Buffer): unknown {
  if (method !== 'POST' && method !== 'PUT') return body;
  try {
    return decodeKubernetesProtobuf(body);
  } catch (error: unknown) {
    if (error instanceof ApiError) return new UndecodableProtobufBody(error);
    throw error;
  }
}
