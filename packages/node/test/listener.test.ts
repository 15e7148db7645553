import { createServer } from 'node:http';
import { createNodeListener } from '@agentrun/node';
import { bridgeContract, LIMIT } from '@agentrun/test-utils/bridge-contract';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import { describe } from 'vitest';

describe('createNodeListener', () => {
  bridgeContract(async ({ main, limited }) => {
    const hostNotFound = createNodeListener(limited, { basePath: '/limited' });
    const server = createServer(createNodeListener(main, { basePath: '/agents', maxBodyBytes: LIMIT, notFound: hostNotFound }));
    const origin = await listen(server);
    return { origin, close: () => closeServer(server) };
  });
});
