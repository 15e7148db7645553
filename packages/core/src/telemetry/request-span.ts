import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { createRouter } from '../http/router.js';
import { AREA_BASE, fullPath } from '../routes/route.js';
import { ROUTES } from '../routes/table.js';
import { parentContext } from './delivery-span.js';
import { ATTR } from './names.js';

export type RequestTelemetry = (request: Request, requestId: string, handle: () => Promise<Response>) => Promise<Response>;

/**
 * A span for each API request (`POST /api/v1/agent/run`, named by its route), SERVER kind, child
 * of the caller's trace. Webhook deliveries get their own span from the ingress instead
 * (delivery-span.ts), so this one stays out of their way.
 */
export function requestTelemetry(tracer: Tracer): RequestTelemetry {
  const router = createRouter(ROUTES);
  const webhooks = `${AREA_BASE.webhooks}/`;
  return async (request, requestId, handle) => {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith(webhooks)) return handle();
    const match = router.match(request.method, pathname);
    const route = match.kind === 'found' ? fullPath(match.spec) : undefined;
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          [ATTR.requestId]: requestId,
          ...(route ? { 'http.route': route } : {}),
          ...(match.kind === 'found' ? { [ATTR.apiOperation]: match.operation } : {}),
        },
      },
      parentContext(request),
    );
    try {
      const response = await handle();
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } finally {
      span.end();
    }
  };
}
