import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { MAX_YAML_ALIASES } from '@agentrun/core/api';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError } from './errors.js';

/**
 * Files named on the command line. Every failure is a usage error (exit 2) naming the file:
 * it cannot be read, or its content does not parse.
 */

export function readBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new InvalidInputError(`cannot read ${what} ${path}: ${describeFsError(error)}`);
  }
}

// Aliases a YAML file may expand: core's limit for definition files (definitions/directory.ts).

/** A JSON file; or YAML when the name ends in `.yaml` or `.yml`. */
export function readDataFile(path: string, what: string): unknown {
  const text = readBytes(path, what).toString('utf8');
  const yaml = /^\.ya?ml$/i.test(extname(path));
  try {
    return yaml ? parseYaml(text, { maxAliasCount: MAX_YAML_ALIASES }) : JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${what} ${path} is not valid ${yaml ? 'YAML' : 'JSON'}: ${firstLine((error as Error).message)}`);
  }
}

const describeFsError = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return (error as Error).message;
};

const firstLine = (text: string): string => text.split('\n')[0] ?? text;
