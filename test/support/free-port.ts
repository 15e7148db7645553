import { createServer } from 'node:net';

/**
 * A port nothing listens on now. The examples' public URL (runs' session_link, ingress URLs) is
 * http://localhost:PORT/agents, known before they listen, so they get a real port, not PORT=0.
 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
