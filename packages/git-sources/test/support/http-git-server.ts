import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A smart-HTTP git server for the tests: Node's http server in front of `git http-backend` (CGI),
 * serving every repository under `root`, and only to requests whose `Authorization` header is
 * exactly `authorization` (403 for `forbidden`, 401 otherwise, as GitHub answers); `/moved/<path>`
 * redirects to `<path>` on another host name. Records every Authorization header it saw.
 */
export interface HttpGitServer {
  url: string;
  requests: { path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function httpGitServer(root: string, authorization: string, forbidden?: string): Promise<HttpGitServer> {
  const requests: HttpGitServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, authorization: req.headers.authorization });
    if (url.pathname.startsWith('/moved/')) {
      // A repository that moved: its new address, which a reader must not follow with the token.
      res
        .writeHead(301, {
          Location: `http://localhost:${(server.address() as AddressInfo).port}${url.pathname.slice('/moved'.length)}${url.search}`,
        })
        .end();
      return;
    }
    if (forbidden !== undefined && req.headers.authorization === forbidden) {
      res.writeHead(403).end('forbidden'); // a token without access to the repository
      return;
    }
    if (req.headers.authorization !== authorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end('unauthorized');
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => {
      if (!headersDone) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
