// Core's own node:crypto ports, under the names this package has always exported. On Node, core's
// `#crypto` import resolves to node:crypto, so these ARE core's defaults: a host no longer needs to
// pass them (docs/signatures.md, "Hashing"); passing them stays accepted and changes nothing.
export { defaultHmac as nodeHmac, defaultSha256 as nodeSha256 } from '@agentrun/core/verify';
