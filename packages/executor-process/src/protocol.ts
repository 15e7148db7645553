import * as v from 'valibot';

/**
 * The JSON-lines protocol an agent may speak on stdout (docs/executors.md, "The JSON-lines
 * protocol"): a line starting with `{"agentrun":` is a message; any other line is progress.
 */
export type AgentMessage = v.InferOutput<typeof AgentMessageSchema>;

const text = v.pipe(v.string(), v.maxLength(10_000));
/** An amount of `usage`: a finite number, not negative (JSON's `1e999` parses to Infinity). */
const amount = v.optional(v.pipe(v.number(), v.finite(), v.minValue(0)));

const AgentMessageSchema = v.variant('agentrun', [
  v.object({ agentrun: v.literal('status'), message: text }),
  v.object({ agentrun: v.literal('session'), id: v.optional(text), link: v.optional(text) }),
  // One of the four kinds (docs/executors.md, "Artifacts") is kept by core; any other `type` is a
  // note in the transcript only, as before artifacts were stored.
  v.object({
    agentrun: v.literal('artifact'),
    type: v.optional(text),
    name: v.optional(text),
    path: v.optional(text),
    url: v.optional(text),
    branch: v.optional(text),
    title: v.optional(text),
    description: v.optional(text),
    content_type: v.optional(text),
    /** A plan's text (a line holds at most 64 KiB). */
    content: v.optional(v.pipe(v.string(), v.maxLength(64 * 1024))),
  }),
  // The run's totals so far (its `request_usage`): core keeps these fields, clamped (models/request-usage.ts).
  v.strictObject({
    agentrun: v.literal('usage'),
    compute_cost: amount,
    compute_cost_usd: amount,
    inference_cost: amount,
    inference_cost_usd: amount,
    platform_cost: amount,
    platform_cost_usd: amount,
    input_tokens: amount,
    output_tokens: amount,
  }),
  v.object({
    agentrun: v.literal('result'),
    status: v.picklist(['succeeded', 'failed']),
    message: v.optional(text),
    error_code: v.optional(text),
  }),
]);

export const PROTOCOL_PREFIX = '{"agentrun":';

/** The line's message; a string saying what is wrong with a line that starts like one but is not. */
export function parseAgentLine(line: string): AgentMessage | string | undefined {
  if (!line.startsWith(PROTOCOL_PREFIX)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  const result = v.safeParse(AgentMessageSchema, json);
  return result.success ? result.output : (result.issues[0]?.message ?? 'not a protocol message');
}

/** One follow-up as the agent reads it on stdin. */
export const followupLine = (followup: { id: string; message: string }) =>
  `${JSON.stringify({ agentrun: 'followup', id: followup.id, message: followup.message })}\n`;
