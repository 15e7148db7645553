export { bodyAlreadyConsumed, bodyConsumedResponse } from './consumed-body.js';
export { declaredLength, declaresBody, toWebHeaders } from './headers.js';
export { createNodeListener, type NodeListenerOptions } from './listener.js';
export { nodeHmac, nodeSha256 } from './node-crypto.js';
export { type ToWebRequestOptions, toWebRequest } from './request.js';
export { mustCloseConnection, writeWebResponse } from './response.js';
export { bridgeAnswer, type FetchHandler, respond, type ServeNodeRequestOptions, serveNodeRequest } from './serve.js';
export { clientGone, disconnectSignal } from './signals.js';
export { normalizeBasePath, requestOrigin, splitTarget, stripBasePath } from './url.js';
