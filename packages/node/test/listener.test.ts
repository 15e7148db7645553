import { createServer } from 'node:http';
import { createNodeListener } from '@agentrun/node';
import { describe } from 'vitest';
import { bridgeContract, LIMIT } from './support/bridge-contract.js';
import { closeServer, listen } from './support/servers.js';

describe('createNodeListener', () => {
  bridgeContract(async ({ main, limited }) => {
    const hostNotFound = createNodeListener(limited, { basePath: '/limited' });
    const server = createServer(createNodeListener(main, { basePath: '/agents', maxBodyBytes: LIMIT, notFound: hostNotFound }));
    const origin = await listen(server);
    return { origin, close: () => closeServer(server) };
  });
});
