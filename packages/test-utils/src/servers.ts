import type { Server } from 'node:http';

/** Listen on an ephemeral port on 127.0.0.1; resolves to `http://127.0.0.1:<port>`. */
export function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
}

/** Close the server, cutting keep-alive connections that would otherwise hold it open. */
export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
