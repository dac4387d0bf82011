import { type BodyDecoder, decodeKubernetesProtobuf as decodeKinds, protobufBodyDecoder } from '../apiserver/index.js';
import { PROTOBUF_KINDS } from './protobuf-message-schemas.js';

/** The devcluster's protobuf bodies (the kinds of {@link PROTOBUF_KINDS}) decoded to JSON; see the core's decoder. */
export function decodeKubernetesProtobuf(body: Buffer): Record<string, unknown> {
  return decodeKinds(body, PROTOBUF_KINDS);
}

/** kubectl's protobuf bodies as a body decoder of the devcluster. */
export const PROTOBUF_BODY_DECODER: BodyDecoder = protobufBodyDecoder(PROTOBUF_KINDS);
