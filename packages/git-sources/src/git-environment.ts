/**
 * The environment of every git call (docs/repositories.md, "The git layer"): nothing of the
 * server's own environment but `PATH`, its proxy and certificate settings, no system or global configuration, an empty `HOME`, no
 * prompts, only the allowed transports. A credential goes into configuration through
 * `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, so it is never in argv (which any
 * user can read in /proc), in the URL, or in the cache's config file.
 */
export function gitEnvironment(home: string, authorization: string | undefined, allowLocalPaths: boolean): NodeJS.ProcessEnv {
  const config: [string, string][] = [
    // A stalled server ends the fetch instead of holding the repository's lock forever.
    ['http.lowSpeedLimit', '1000'],
    ['http.lowSpeedTime', '30'],
    ['protocol.version', '2'],
    // No redirect is followed: after one, git sends its later requests, header and all, to the
    // new address, which would hand the token to whatever host a server redirects to.
    ['http.followRedirects', 'false'],
    // git's automatic housekeeping after a fetch runs inside that fetch (under its lock and
    // timeout), not as a detached process outliving it.
    ['gc.autoDetach', 'false'],
    ['maintenance.autoDetach', 'false'],
  ];
  if (authorization !== undefined) config.push(['http.extraHeader', `Authorization: ${authorization}`]);
  const env: NodeJS.ProcessEnv = {
    ...passedThrough(),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'false',
    SSH_ASKPASS: 'false',
    // git's own check behind repository-url.ts: local paths count as `file` for git.
    GIT_ALLOW_PROTOCOL: allowLocalPaths ? 'https:http:file' : 'https:http',
    GIT_CONFIG_COUNT: String(config.length),
  };
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/**
 * What a host sets for the network and is no secret of its own: proxies (lowercase and uppercase,
 * as curl reads both) and the certificate authorities to trust.
 */
const PASSED = [
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
];

function passedThrough(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}
