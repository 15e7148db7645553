import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { formatBytes } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { saveAs } from '../save-as.js';
import type { Artifact } from '../transcript-items.js';
import { ErrorText } from './error-text.js';
import { MarkdownView } from './markdown-view.js';

/** The longest plan drawn on the page; a longer one is there to download. */
const MAX_PLAN_BYTES = 256 * 1024;

/**
 * An artifact as what it is (docs/artifacts.md): a pull request as a link, a plan's Markdown drawn
 * (markdown.ts: no HTML of the agent's reaches the page), a screenshot drawn (its bytes fetched
 * with the API key into a blob URL, never a page of theirs), a file to download.
 */
export function ArtifactView({ artifact }: { artifact: Artifact }) {
  const client = useClient();
  const [problem, setProblem] = useState<Problem | undefined>();
  const download = async (uid: string, type: string, name: string) => {
    try {
      saveAs(await client.artifacts.download(uid), type, name);
    } catch (error) {
      setProblem(describe(error));
    }
  };
  switch (artifact.artifact_type) {
    case 'PULL_REQUEST':
      return (
        <div class="artifact artifact-pr">
          Pull request{' '}
          <a href={artifact.data.url} target="_blank" rel="noopener noreferrer">
            {artifact.data.url}
          </a>{' '}
          (branch <code>{artifact.data.branch}</code>)
        </div>
      );
    case 'PLAN': {
      const { artifact_uid: uid, title, url } = artifact.data;
      return (
        <div class="artifact artifact-plan">
          Plan {title ? <strong>{title}</strong> : null}{' '}
          {url ? (
            <a href={url} target="_blank" rel="noopener noreferrer">
              open
            </a>
          ) : null}
          {uid ? (
            <>
              <button type="button" class="link" onClick={() => download(uid, 'text/markdown', `${title || 'plan'}.md`)}>
                Download the plan
              </button>
              <PlanText uid={uid} />
            </>
          ) : null}
          <ErrorText problem={problem} />
        </div>
      );
    }
    case 'SCREENSHOT':
      return (
        <figure class="artifact artifact-screenshot">
          <Screenshot uid={artifact.data.artifact_uid} alt={artifact.data.description ?? 'Screenshot'} />
          {artifact.data.description ? <figcaption>{artifact.data.description}</figcaption> : null}
        </figure>
      );
    case 'FILE':
      return (
        <div class="artifact artifact-file">
          <button
            type="button"
            class="link"
            onClick={() => download(artifact.data.artifact_uid, artifact.data.mime_type, artifact.data.filename)}
          >
            Download {artifact.data.filename}
          </button>{' '}
          (<code>{artifact.data.filepath}</code>, {artifact.data.mime_type}
          {artifact.data.size_bytes !== undefined ? `, ${formatBytes(artifact.data.size_bytes)}` : ''})
          <ErrorText problem={problem} />
        </div>
      );
  }
}

/** A stored plan's text, read with the API key and drawn as Markdown. */
function PlanText({ uid }: { uid: string }) {
  const client = useClient();
  const [text, setText] = useState<string | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const bytes = await client.artifacts.download(uid);
        if (!live) return;
        if (bytes.byteLength > MAX_PLAN_BYTES) setText('');
        else setText(new TextDecoder().decode(bytes));
      } catch (error) {
        if (live) setProblem(describe(error));
      }
    })();
    return () => {
      live = false;
    };
  }, [client, uid]);
  if (problem) return <ErrorText problem={problem} />;
  if (text === undefined) return <p role="status">Loading the plan…</p>;
  if (text === '') return <p class="hint">The plan is too long to show here: download it.</p>;
  return <MarkdownView source={text} />;
}

/** A screenshot inline: its bytes read with the API key, shown from a blob URL of its image type. */
function Screenshot({ uid, alt }: { uid: string; alt: string }) {
  const client = useClient();
  const [src, setSrc] = useState<string | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    void (async () => {
      try {
        const artifact = await client.artifacts.get(uid);
        const type = 'content_type' in artifact.data && artifact.data.content_type ? artifact.data.content_type : 'image/png';
        const bytes = await client.artifacts.download(uid);
        if (!live) return;
        url = URL.createObjectURL(new Blob([bytes], { type }));
        setSrc(url);
      } catch (error) {
        if (live) setProblem(describe(error));
      }
    })();
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, uid]);
  if (problem) return <ErrorText problem={problem} />;
  return src ? <img class="screenshot" src={src} alt={alt} /> : <span role="status">Loading the screenshot…</span>;
}
