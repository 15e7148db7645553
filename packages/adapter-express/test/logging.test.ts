import type { Server } from 'node:http';
import { agentrunExpress } from '@agentrun/adapter-express';
import { realCore } from '@agentrun/test-utils/real-core';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';

// Under Express, a `req.log` (pino-http's) is agentrun's logger for the request, as Fastify's
// request.log is (docs/operations.md, "Logging"); without one, the console.
describe('agentrunExpress logging', () => {
  let server: Server | undefined;
  afterAll(() => server?.close());

  it("logs each request through req.log when the host's middleware set one", async () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const app = express();
    app.use((req, _res, next) => {
      const at = (fields: object, message: string) => void lines.push({ fields: fields as Record<string, unknown>, message });
      (req as unknown as { log: unknown }).log = { error: at, warn: at, info: at, debug: at };
      next();
    });
    app.use('/agents', agentrunExpress((await realCore()).handler));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/agents/api/v1/agent/runs`);
    expect(res.status).toBe(401);
    expect(lines).toEqual([
      {
        message: 'request',
        fields: expect.objectContaining({ request_id: res.headers.get('x-request-id'), operation: 'listRuns', status: 401 }),
      },
    ]);
  });
});
