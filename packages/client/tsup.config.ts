import { packageBuild } from '../../tsup.base.js';

// The only values the client takes from core are its lists (src/index.ts). They are copied in from
// core's sources, where each sits in a module of plain values, so the published client loads no
// core module at run time; core stays a peer for the types. test/bundle.test.ts holds it to that.
export default packageBuild(['src/index.ts'], { bundle: ['@agentrun/core'] });
