import type { ArtifactService } from '../artifacts/artifact-service.js';
import { mountedBase } from './mount-path.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

/**
 * The artifact call and the signed download (docs/artifacts.md). A download is an attachment
 * unless it is one of the image types shown inline (artifacts/content-types.ts); HTML or SVG is
 * never rendered, and nothing on the answer runs (`nosniff`, a CSP that allows nothing).
 */
export function artifactOperations(
  artifacts: ArtifactService,
  publicBaseUrl?: string,
): OperationHandlers<'getArtifact' | 'downloadArtifact'> {
  return {
    getArtifact: async ({ principal, request, url }, { artifactUid }) =>
      jsonResponse(await artifacts.get(principal.team_uid, artifactUid, publicBaseUrl?.replace(/\/+$/, '') ?? mountedBase(request, url))),
    downloadArtifact: async ({ request, url }, { artifactUid }) => {
      const file = await artifacts.download(artifactUid, url.searchParams.get('expires'), url.searchParams.get('signature'));
      const disposition = `${file.inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.fileName)}`;
      return new Response(request.method === 'HEAD' ? null : (file.bytes as Uint8Array<ArrayBuffer>), {
        headers: {
          'content-type': file.contentType,
          'content-length': String(file.bytes.byteLength),
          'content-disposition': disposition,
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, no-store',
        },
      });
    },
  };
}
