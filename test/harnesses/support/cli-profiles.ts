import { anthropicApi } from '../../support/model-server/anthropic.js';
import type { ModelApi } from '../../support/model-server/api.js';
import { geminiApi } from '../../support/model-server/gemini.js';
import { openaiApi } from '../../support/model-server/openai.js';
import type { RecordedRequest } from '../../support/model-server/server.js';

/** What the end-to-end cases need to know of one CLI beyond its harness (docs/harnesses.md, "Testing"). */
export interface CliProfile {
  type: 'claude' | 'codex' | 'gemini';
  /** The model API the scripted server speaks to it. */
  api: ModelApi;
  /** The endpoint the executor gives it, for a model server at `url`. */
  endpoint(url: string): string;
  /** A model id it gives a shell tool and a file tool. */
  model: string;
  /** Where a request carries the API key. */
  keyOf(request: RecordedRequest): string | undefined;
}

const header = (request: RecordedRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export const CODEX: CliProfile = {
  type: 'codex',
  api: openaiApi,
  // OPENAI_BASE_URL's form: the API's root, /v1 included.
  endpoint: (url) => `${url}/v1`,
  model: 'gpt-5.5',
  keyOf: (r) => header(r, 'authorization')?.replace(/^Bearer /, ''),
};

export const GEMINI: CliProfile = {
  type: 'gemini',
  api: geminiApi,
  endpoint: (url) => url,
  model: 'gemini-2.5-flash',
  keyOf: (r) => header(r, 'x-goog-api-key'),
};

export const CLAUDE: CliProfile = {
  type: 'claude',
  api: anthropicApi,
  // ANTHROPIC_BASE_URL's form: the API's root, without /v1.
  endpoint: (url) => url,
  model: 'claude-sonnet-4-5',
  keyOf: (r) => header(r, 'x-api-key'),
};
