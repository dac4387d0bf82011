// Length-prefixed frames for benchmarks/sandbox-ipc-framing.mjs (the alternative to Node's IPC
// channel that ADR 0034 measured and did not adopt): `[header bytes: uint32 BE][payload bytes:
// uint32 BE][header JSON][payload]`, so a crossing's JSON text travels as is, not escaped inside
// a message.
const PREFIX = 8;

/** One frame in one buffer (one write). */
export function encodeFrame(header, payload = '') {
  const headerText = JSON.stringify(header);
  const headerBytes = Buffer.byteLength(headerText);
  const payloadBytes = Buffer.byteLength(payload);
  const frame = Buffer.allocUnsafe(PREFIX + headerBytes + payloadBytes);
  frame.writeUInt32BE(headerBytes, 0);
  frame.writeUInt32BE(payloadBytes, 4);
  frame.write(headerText, PREFIX);
  if (payloadBytes > 0) frame.write(payload, PREFIX + headerBytes);
  return frame;
}

/** Feed it a pipe's chunks; it calls `onFrame(header, payload)` per complete frame, in order. */
export function frameReader(onFrame) {
  let buffered = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    let offset = 0;
    while (buffered.length - offset >= PREFIX) {
      const headerBytes = buffered.readUInt32BE(offset);
      const payloadBytes = buffered.readUInt32BE(offset + 4);
      const end = offset + PREFIX + headerBytes + payloadBytes;
      if (buffered.length < end) break;
      const header = JSON.parse(buffered.toString('utf8', offset + PREFIX, offset + PREFIX + headerBytes));
      const payload = buffered.toString('utf8', offset + PREFIX + headerBytes, end);
      offset = end;
      onFrame(header, payload);
    }
    buffered = offset === buffered.length ? Buffer.alloc(0) : buffered.subarray(offset);
  };
}
