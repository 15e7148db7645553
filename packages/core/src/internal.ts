// `@agentrun/core/internal`: what agentrun's own adapters, bridge and reference server share with
// core (docs/embedding.md, "Writing an adapter for another Node framework"). Not a stable API for applications: it may change
// in any release, together with the packages that use it.

export { MIN_API_KEY_LENGTH } from './auth/api-keys.js';
export { createSecretCipher } from './control/secret-cipher.js';
export { type BodyReader, concatBytes, parseJsonBody, READ_BODY, readBodyLimited } from './http/body.js';
export { finishResponse, REQUEST_ID_HEADER, requestIdFrom } from './http/finish-response.js';
export { forwardToReal } from './http/lazy-web-object.js';
export { MOUNT_PATH, mountedBase } from './http/mount-path.js';
export { isStalledReaderDrop } from './http/paced-body.js';
export { REMOTE_ADDRESS } from './http/remote-address.js';
export { jsonResponse, problemResponse } from './http/responses.js';
export { type BufferedResponse, bufferedResponse, textResponse } from './http/text-response.js';
export { attachRequestLogger } from './logging/request-log.js';
export { checkOptions } from './util/check-options.js';
export { sha256Hex } from './util/hash.js';
