import type { Principal } from '../auth/principal.js';
import type { ControlService } from '../control/control-service.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import { mountedBase } from './mount-path.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';
import type { Router } from './router.js';

interface Ctx {
  request: Request;
  url: URL;
  principal: Principal;
}

/** The management API of contract §8, under the same base path, auth and errors as the run API. */
export function addControlRoutes(
  router: Router<Ctx>,
  base: string,
  control: ControlService,
  readJson: (request: Request) => Promise<unknown>,
  /** Like `readJson`, but an empty body is `undefined` rather than a 400. */
  readOptionalJson: (request: Request) => Promise<unknown>,
  idempotent: IdempotentWrite,
): void {
  const f = `${base}/factories/:factory`;
  /** Every management POST takes an `Idempotency-Key` (docs/run-api.md, "Idempotency"). */
  const post = (ctx: Ctx, operation: string, body: unknown, status: number, write: () => Promise<unknown>) =>
    idempotent(ctx.principal, withKey(ctx.request, operation, body).idempotency, async () => ({ status, body: await write() }));
  const noContent = () => new Response(null, { status: 204 });
  router
    .on('POST', `${base}/factories`, async (ctx) => {
      const body = await readJson(ctx.request);
      return post(ctx, 'create factory', body, 201, () => control.createFactory(ctx.principal, body));
    })
    .on('GET', `${base}/factories`, async ({ principal }) => jsonResponse(await control.listFactories(principal)))
    .on('GET', f, async ({ principal }, p) => jsonResponse(await control.getFactory(principal, p.factory as string)))

    .on('GET', `${base}/team/secrets`, async ({ principal }) => jsonResponse(await control.listSecrets(principal)))
    .on('PUT', `${base}/team/secrets/:name`, async ({ principal, request }, p) => {
      const { created, secret } = await control.putSecret(principal, p.name as string, await readJson(request));
      return jsonResponse(secret, created ? 201 : 200);
    })
    .on('DELETE', `${base}/team/secrets/:name`, async ({ principal }, p) => {
      await control.deleteSecret(principal, p.name as string);
      return noContent();
    })

    .on('POST', `${f}/webhooks`, async (ctx, p) => {
      const body = await readJson(ctx.request);
      return post(ctx, `create webhook ${p.factory}`, body, 201, () =>
        control.createWebhook(ctx.principal, p.factory as string, body, mountedBase(ctx.request, ctx.url)),
      );
    })
    .on('GET', `${f}/webhooks`, async ({ principal, request, url }, p) =>
      jsonResponse(await control.listWebhooks(principal, p.factory as string, mountedBase(request, url))),
    )
    .on('GET', `${f}/webhooks/:uid`, async ({ principal, request, url }, p) =>
      jsonResponse(await control.getWebhook(principal, p.factory as string, p.uid as string, mountedBase(request, url))),
    )
    .on('PATCH', `${f}/webhooks/:uid`, async ({ principal, request, url }, p) =>
      jsonResponse(
        await control.patchWebhook(principal, p.factory as string, p.uid as string, await readJson(request), mountedBase(request, url)),
      ),
    )
    .on('DELETE', `${f}/webhooks/:uid`, async ({ principal }, p) => {
      await control.deleteWebhook(principal, p.factory as string, p.uid as string);
      return noContent();
    })
    .on('POST', `${f}/webhooks/:uid/rotate-secret`, async (ctx, p) => {
      const body = await readOptionalJson(ctx.request);
      return post(ctx, `rotate ${p.factory}/${p.uid}`, body, 200, () =>
        control.rotateSecret(ctx.principal, p.factory as string, p.uid as string, body, mountedBase(ctx.request, ctx.url)),
      );
    })
    .on('PUT', `${f}/webhooks/:uid/provider-secret`, async ({ principal, request, url }, p) =>
      jsonResponse(
        await control.putProviderSecret(
          principal,
          p.factory as string,
          p.uid as string,
          await readJson(request),
          mountedBase(request, url),
        ),
      ),
    )

    .on('GET', `${f}/webhooks/:uid/deliveries`, async ({ principal, url }, p) =>
      jsonResponse(await control.listDeliveries(principal, p.factory as string, p.uid as string, queryObject(url))),
    )
    .on('GET', `${f}/webhooks/:uid/deliveries/:delivery`, async ({ principal }, p) =>
      jsonResponse(await control.getDelivery(principal, p.factory as string, p.uid as string, p.delivery as string)),
    )
    .on('GET', `${f}/webhooks/:uid/deliveries/:delivery/payload`, async ({ principal }, p) => {
      const bytes = await control.getDeliveryPayload(principal, p.factory as string, p.uid as string, p.delivery as string);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes.byteLength),
          'x-content-type-options': 'nosniff',
        },
      });
    })
    .on('POST', `${f}/automations`, async (ctx, p) => {
      const body = await readJson(ctx.request);
      return post(ctx, `create automation ${p.factory}`, body, 201, () =>
        control.createAutomation(ctx.principal, p.factory as string, body),
      );
    })
    .on('GET', `${f}/automations`, async ({ principal }, p) => jsonResponse(await control.listAutomations(principal, p.factory as string)))
    .on('GET', `${f}/automations/:id`, async ({ principal }, p) =>
      jsonResponse(await control.getAutomation(principal, p.factory as string, p.id as string)),
    )
    .on('PATCH', `${f}/automations/:id`, async ({ principal, request }, p) =>
      jsonResponse(await control.patchAutomation(principal, p.factory as string, p.id as string, await readJson(request))),
    )
    .on('DELETE', `${f}/automations/:id`, async ({ principal }, p) => {
      await control.deleteAutomation(principal, p.factory as string, p.id as string);
      return noContent();
    })
    .on('POST', `${f}/automations/:id/test-filter`, async (ctx, p) => {
      const body = await readJson(ctx.request);
      return post(ctx, `test filter ${p.factory}/${p.id}`, body, 200, () =>
        control.testFilter(ctx.principal, p.factory as string, p.id as string, body),
      );
    });
}
