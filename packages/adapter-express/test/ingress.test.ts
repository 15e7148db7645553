import { createServer } from 'node:http';
import { agentrunExpress } from '@agentrun/adapter-express';
import { HOST_JSON_ROUTES, ingressContract, MOUNT } from '@agentrun/test-utils/ingress-contract';
import { closeServer, listen } from '@agentrun/test-utils/servers';
import express from 'express';
import { describe } from 'vitest';

describe('webhook ingress through agentrunExpress under a prefix, with express.json() on host routes', () => {
  ingressContract(async (handler) => {
    const app = express();
    const echo: express.RequestHandler = (req, res) => {
      res.json({ got: req.body });
    };
    const [outside, inside] = HOST_JSON_ROUTES;
    app.post(outside, express.json(), echo);
    app.use(MOUNT, agentrunExpress(handler));
    // Inside the prefix, after the middleware: reached through its next().
    app.post(inside, express.json(), echo);
    const server = createServer(app);
    const origin = await listen(server);
    return { origin, close: () => closeServer(server) };
  });
});
