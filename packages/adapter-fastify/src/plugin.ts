import type { Readable } from 'node:stream';
import type { Mountable } from '@agentrun/core';
import { attachRequestLogger, bufferedResponse } from '@agentrun/core/internal';
import { mustCloseConnection, requestOrigin, respond, splitTarget, stripBasePath, toWebRequest } from '@agentrun/node';
import type { FastifyPluginAsync } from 'fastify';
import { printsInfo } from './prints-info.js';

export interface AgentrunFastifyOptions {
  /** An agentrun from `createAgentRun`, or any part of it: only `fetch` and `owns` are used. */
  handler: Mountable;
  /** Error request bodies past this many bytes while they stream in (413). Core's own limit still applies. */
  maxBodyBytes?: number;
}

/**
 * Fastify plugin serving agentrun: `app.register(agentrunFastify, { handler, prefix: '/agents' })`.
 * Deliberately not wrapped in fastify-plugin: it stays encapsulated, so the pass-through body
 * parser below never reaches the host's routes. Paths agentrun does not own get Fastify's own 404,
 * and host routes under the same prefix win over the wildcard.
 */
export const agentrunFastify: FastifyPluginAsync<AgentrunFastifyOptions> = async (app, { handler, maxBodyBytes }) => {
  // Bodies reach the handler as raw bytes, never parsed or re-serialised. With a custom parser
  // Fastify's bodyLimit does not apply; the bridge enforces maxBodyBytes while streaming.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const prefix = app.prefix;
  // Only the wildcard: the mount point itself is never agentrun's, and claiming it would collide
  // with a host route on the prefix (or on `/` when mounted at the root).
  app.all('/*', async (request, reply) => {
    const { pathname, search } = splitTarget(request.url);
    // The router may have matched the prefix case-insensitively; what it matched is what we strip.
    const relative = stripBasePath(pathname, prefix, { caseInsensitive: true });
    if (relative === undefined || !handler.owns(relative)) return reply.callNotFound();

    const response = await respond(
      (webRequest) => {
        // agentrun logs through this request's pino logger unless createAgentRun was given one (docs/operations.md,
        // "Logging"); its request line is not even gathered when that logger prints no info.
        attachRequestLogger(webRequest, request.log, { lines: printsInfo(request.log) });
        return handler.fetch(webRequest);
      },
      () =>
        toWebRequest(request.raw, {
          url: requestOrigin(request.raw, { protocol: request.protocol, host: request.host }) + relative + search,
          response: reply.raw,
          // The payload our parser handed over: the raw request, or what a host preParsing hook made of it.
          ...(isReadable(request.body) ? { body: request.body } : {}),
          ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
          // The prefix as the client wrote it (what the router matched): printed URLs need it.
          ...(relative.length < pathname.length ? { mountPath: pathname.slice(0, pathname.length - relative.length) } : {}),
        }),
      request.raw,
    );
    if (mustCloseConnection(request.raw)) reply.header('connection', 'close');
    // A reply core made from a string (every JSON answer) is sent as that string; any other,
    // Fastify sends as a Web Response (status, every header, streamed body with backpressure).
    const buffered = bufferedResponse(response);
    if (buffered !== undefined) return reply.code(buffered.status).headers(buffered.headers).send(buffered.body);
    return reply.send(response);
  });
};

const isReadable = (value: unknown): value is Readable =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Readable).pipe === 'function' &&
  typeof (value as Readable).on === 'function';
