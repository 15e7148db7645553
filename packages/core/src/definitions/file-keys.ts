/**
 * Definition files name their keys in camelCase (seed 2.4: `authMode`, `signatureScheme`,
 * `secretName`); the API names them in snake_case. The same table turns a file's key into the
 * API's and an answer's path back into the file's key (docs/definitions.md, "Keys").
 */
const FILE_TO_API: Readonly<Record<string, string>> = {
  authMode: 'auth_mode',
  signatureScheme: 'signature_scheme',
  secretName: 'secret_name',
  deliveryIdHeader: 'delivery_id_header',
  setupTimeoutSeconds: 'setup_timeout_seconds',
  cronSchedule: 'cron_schedule',
  timeZone: 'time_zone',
};

const API_TO_FILE: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(FILE_TO_API).map(([f, a]) => [a, f]));

/** A file's top-level key as the API names it (unknown keys unchanged: the API refuses them by name). */
export const apiKey = (fileKey: string): string => FILE_TO_API[fileKey] ?? fileKey;

/** An API key as the file names it. */
export const fileKey = (key: string): string => API_TO_FILE[key] ?? key;
