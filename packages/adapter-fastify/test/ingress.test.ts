import { agentrunFastify } from '@agentrun/adapter-fastify';
import { HOST_JSON_ROUTES, ingressContract, MOUNT } from '@agentrun/test-utils/ingress-contract';
import Fastify from 'fastify';
import { describe } from 'vitest';

describe("webhook ingress through agentrunFastify registered with a prefix, with Fastify's JSON parser on host routes", () => {
  ingressContract(async (handler) => {
    const app = Fastify();
    // Host routes with Fastify's own JSON body parser, outside and inside the prefix.
    for (const route of HOST_JSON_ROUTES) app.post(route, async (request) => ({ got: request.body }));
    await app.register(agentrunFastify, { handler, prefix: MOUNT });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin, close: () => app.close() };
  });
});
