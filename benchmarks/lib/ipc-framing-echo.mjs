// Echo worker of benchmarks/sandbox-ipc-framing.mjs: answers each crossing with its own payload,
// over Node's JSON IPC channel (argv `ipc`), over length-prefixed frames on fd 3/4 read in the
// event loop (`pipes`), or over the same frames read with a blocking read(2) and answered with one
// write(2), never entering the event loop (`blocking`), or on a worker thread's message port
// (`thread`); reports its CPU time on request. No isolate: only the transport is measured.
import { readSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { encodeFrame, frameReader } from './ipc-frames.mjs';

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

if (process.argv[2] === 'thread') {
  parentPort.on('message', (message) => parentPort.postMessage({ type: 'answer', id: message.id, ok: true, outputJson: message.inputJson }));
} else if (process.argv[2] === 'ipc') {
  process.on('message', (message) => {
    if (message.type === 'usage') process.send({ type: 'usage', micros: cpuMicros() });
    else process.send({ type: 'answer', id: message.id, ok: true, outputJson: message.inputJson });
  });
  process.on('disconnect', () => process.exit(0));
} else if (process.argv[2] === 'blocking') {
  // A request frame to its answer frame, in this turn: what a worker with nothing else to do can do.
  const answer = (header, payload) => {
    const frame = header.type === 'usage' ? encodeFrame({ type: 'usage', micros: cpuMicros() }) : encodeFrame({ type: 'answer', id: header.id, ok: true }, payload);
    for (let written = 0; written < frame.length;) written += writeSync(4, frame, written);
  };
  const push = frameReader(answer);
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const bytes = readSync(3, chunk, 0, chunk.length, null);
    if (bytes === 0) process.exit(0);
    // frameReader keeps a view of an incomplete rest: hand it a copy, the chunk is reused.
    push(Buffer.from(chunk.subarray(0, bytes)));
  }
} else {
  const answers = new Socket({ fd: 4, readable: false, writable: true });
  const requests = new Socket({ fd: 3, readable: true, writable: false });
  requests.on('data', frameReader((header, payload) => {
    answers.write(header.type === 'usage' ? encodeFrame({ type: 'usage', micros: cpuMicros() }) : encodeFrame({ type: 'answer', id: header.id, ok: true }, payload));
  }));
  requests.on('end', () => process.exit(0));
}
