export { BOOTSTRAP_PRINCIPAL, type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from './server.js';
