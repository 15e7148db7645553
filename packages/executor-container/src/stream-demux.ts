import { PassThrough, type Readable } from 'node:stream';

/**
 * The engine's multiplexed stream (a container attached without a TTY): frames of an 8-byte header
 * (stream 1 stdout, 2 stderr; three zero bytes; the payload's length, big-endian) then the payload.
 * Split back into two streams that end when the source ends.
 */
export function demux(source: Readable, head?: Buffer): { stdout: PassThrough; stderr: PassThrough } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let pending: Buffer = head ?? Buffer.alloc(0);
  const drain = () => {
    while (pending.length >= 8) {
      const size = pending.readUInt32BE(4);
      if (pending.length < 8 + size) return;
      const kind = pending[0];
      const payload = pending.subarray(8, 8 + size);
      pending = pending.subarray(8 + size);
      // Backpressure: the stdout reader pausing (the store behind) pauses the socket.
      if (kind === 2) stderr.write(payload);
      else if (!stdout.write(payload)) {
        source.pause();
        stdout.once('drain', () => source.resume());
      }
    }
  };
  drain();
  source.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    drain();
  });
  const end = () => {
    stdout.end();
    stderr.end();
  };
  source.once('end', end);
  source.once('close', end);
  source.once('error', end);
  return { stdout, stderr };
}
