/**
 * Where the engine's API is (docs/executors.md, "The container executor"): `DOCKER_HOST` as Docker's
 * own client reads it, `unix:///path/to.sock` or `tcp://host:port`, else Docker's default socket.
 * Podman's `podman system service` serves the same API on a socket of its choosing.
 */
export type EngineAddress = { kind: 'unix'; socketPath: string } | { kind: 'tcp'; host: string; port: number };

export const DEFAULT_ENGINE = 'unix:///var/run/docker.sock';

export function engineAddress(value: string): EngineAddress {
  if (value.startsWith('unix://')) {
    const socketPath = value.slice('unix://'.length);
    if (!socketPath.startsWith('/')) throw new TypeError(`engine address ${value}: a unix socket's path must be absolute (unix:///path)`);
    return { kind: 'unix', socketPath };
  }
  if (value.startsWith('tcp://') || value.startsWith('http://')) {
    const url = new URL(value.replace(/^tcp:/, 'http:'));
    const port = url.port === '' ? 2375 : Number(url.port);
    return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port };
  }
  throw new TypeError(`engine address ${value}: must be unix:///path or tcp://host:port (as DOCKER_HOST)`);
}
