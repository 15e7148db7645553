import { ARTIFACT_TYPES, type ArtifactType, type ExecutionContext, type ReportedArtifact } from '@agentrun/core';
import { readWorkspaceFile } from './artifact-file.js';
import type { AgentMessage } from './protocol.js';

/** Artifact messages one execution may send; past it they are dropped with one note (the run's own quota is core's). */
const MAX_ARTIFACT_MESSAGES = 200;

type ArtifactMessage = Extract<AgentMessage, { agentrun: 'artifact' }>;

/**
 * The agent's artifact messages of the four kinds (docs/executors.md, "Artifacts"), reported to
 * core one at a time in the order sent: a screenshot's or file's bytes read from the workspace
 * (artifact-file.ts), so at most one file is in memory at once. What core or the read refuses
 * leaves a note (`note`), and the run goes on: an artifact never decides the run's outcome.
 *
 * Everything a message leaves, its artifact's event or its refusal's note, is written from one
 * queue, each waited for before the next message is taken up, the note on the messages past the
 * limit among them: so the transcript tells them in the order the agent printed them. Given
 * `inOrder`, that queue is the run's transcript writer's (transcript-writer.ts), so the lines
 * printed around a message keep their places around what it leaves too.
 */
export function artifactReports(
  context: ExecutionContext,
  options: {
    workspace: string | undefined;
    maxFileBytes: number;
    /** Write a refusal's note to the transcript; resolves once it is written. */
    note: (message: string) => Promise<void>;
    onError: (error: unknown) => void;
    /** The queue each message's work goes through, one at a time in the order given; else one of its own. */
    inOrder?: (work: () => Promise<void>) => void;
  },
) {
  let queue: Promise<void> = Promise.resolve();
  let count = 0;
  const enqueue =
    options.inOrder ??
    ((work: () => Promise<void>) => {
      queue = queue.then(work).catch(options.onError);
    });
  const report = async (message: ArtifactMessage & { type: ArtifactType }) => {
    const reported = await reportedOf(message, options.workspace, options.maxFileBytes);
    if (typeof reported === 'string') return options.note(`Artifact refused: ${reported}`);
    const result = await context.reportArtifact?.(reported);
    if (result && !result.accepted) await options.note(`Artifact refused: ${result.reason}`);
  };
  return {
    /** Whether the message is one this takes (one of the four kinds, with a context that keeps artifacts). */
    take(message: ArtifactMessage): boolean {
      if (!isArtifactType(message.type) || !context.reportArtifact) return false;
      if (++count > MAX_ARTIFACT_MESSAGES) {
        if (count === MAX_ARTIFACT_MESSAGES + 1)
          enqueue(() => options.note(`Artifact refused: more than ${MAX_ARTIFACT_MESSAGES} artifact messages`));
        return true;
      }
      const typed = message as ArtifactMessage & { type: ArtifactType };
      enqueue(() => report(typed));
      return true;
    },
    /** Resolves once every message taken so far was reported (its own queue; with `inOrder`, wait for that one). */
    idle: () => queue,
  };
}

const isArtifactType = (type: string | undefined): type is ArtifactType =>
  (ARTIFACT_TYPES as readonly (string | undefined)[]).includes(type);

/** Only the fields given: core's schema is strict. */
const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

async function reportedOf(
  message: ArtifactMessage & { type: ArtifactType },
  workspace: string | undefined,
  maxFileBytes: number,
): Promise<ReportedArtifact | string> {
  switch (message.type) {
    case 'PLAN':
      return defined({ type: 'PLAN' as const, title: message.title, url: message.url, content: message.content });
    case 'PULL_REQUEST':
      return defined({ type: 'PULL_REQUEST' as const, url: message.url ?? '', branch: message.branch ?? '' });
    case 'SCREENSHOT':
    case 'FILE': {
      if (message.path === undefined) return `a ${message.type} needs a path`;
      if (workspace === undefined) return 'no workspace to read it from';
      const read = await readWorkspaceFile(workspace, message.path, maxFileBytes);
      if ('refused' in read) return read.refused;
      return message.type === 'SCREENSHOT'
        ? defined({ type: 'SCREENSHOT' as const, filepath: message.path, content: read.bytes, description: message.description })
        : defined({
            type: 'FILE' as const,
            filepath: message.path,
            content: read.bytes,
            description: message.description,
            content_type: message.content_type,
          });
    }
  }
}
