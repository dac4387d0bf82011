// Echo worker of benchmarks/sandbox-ipc-framing.mjs: answers each crossing with its own payload,
// over Node's JSON IPC channel (argv `ipc`) or over length-prefixed frames on fd 3/4 (`pipes`), and
// reports its CPU time on request. No isolate: only the transport is measured.
import { Socket } from 'node:net';
import { encodeFrame, frameReader } from './ipc-frames.mjs';

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

if (process.argv[2] === 'ipc') {
  process.on('message', (message) => {
    if (message.type === 'usage') process.send({ type: 'usage', micros: cpuMicros() });
    else process.send({ type: 'answer', id: message.id, ok: true, outputJson: message.inputJson });
  });
  process.on('disconnect', () => process.exit(0));
} else {
  const answers = new Socket({ fd: 4, readable: false, writable: true });
  const requests = new Socket({ fd: 3, readable: true, writable: false });
  requests.on('data', frameReader((header, payload) => {
    answers.write(header.type === 'usage' ? encodeFrame({ type: 'usage', micros: cpuMicros() }) : encodeFrame({ type: 'answer', id: header.id, ok: true }, payload));
  }));
  requests.on('end', () => process.exit(0));
}
