import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Io } from './command.js';
import { CliError, InvalidInputError } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * A secret value, read so that it is never in argv (so never in shell history or `ps`) and never
 * echoed (docs/cli.md, "secret …"): all of stdin when it is a pipe or file, with one trailing
 * newline taken off (`echo`, `printf '%s\n'`); else a prompt on stderr whose typing is not shown.
 */
export async function readSecretValue(io: Io, prompt: string): Promise<string> {
  const value = io.stdin.isTTY ? await promptHidden(io, prompt) : stripNewline(await readAll(io.stdin));
  if (value === '') throw new InvalidInputError('the secret value is empty (give it on stdin, or type it at the prompt)');
  return value;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const stripNewline = (text: string): string => text.replace(/\r?\n$/, '');

/** readline over a muted output: the prompt is written, then nothing the terminal echoes back. */
function promptHidden(io: Io, prompt: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr.write(String(chunk));
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  return new Promise((resolve, reject) => {
    let answered = false;
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      io.stderr.write('\n');
      if (!answered) reject(new CliError('cancelled: no secret value given', EXIT.usage));
    });
    rl.question(prompt, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
    muted = true;
  });
}
