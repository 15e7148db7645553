import { CopyButton } from '../components/copy-button.js';

/** The ingress URL and a just-made secret: shown this once, with copy buttons. */
export function SecretOnce({ ingressUrl, secret }: { ingressUrl: string; secret: string | undefined }) {
  return (
    <dl class="facts secret-once">
      <dt>Ingress URL</dt>
      <dd>
        <code data-testid="ingress-url">{ingressUrl}</code> <CopyButton text={ingressUrl} label="Copy URL" />
      </dd>
      {secret ? (
        <>
          <dt>Secret</dt>
          <dd>
            <code data-testid="secret">{secret}</code> <CopyButton text={secret} label="Copy secret" />
            <p class="warning">Shown this once: copy it now. It cannot be read again, only rotated.</p>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
