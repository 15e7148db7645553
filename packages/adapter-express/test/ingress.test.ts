import { createServer } from 'node:http';
import { agentrunExpress } from '@agentrun/adapter-express';
import express from 'express';
import { describe } from 'vitest';
import { HOST_JSON_ROUTES, ingressContract, MOUNT } from '../../node/test/support/ingress-contract.js';
import { closeServer, listen } from '../../node/test/support/servers.js';

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
