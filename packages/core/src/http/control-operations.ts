import type { ControlService } from '../control/control-service.js';
import { ROUTES } from '../routes/table.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import { mountedBase } from './mount-path.js';
import type { ApiContext, OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type ControlOperation =
  | 'createFactory'
  | 'listFactories'
  | 'getFactory'
  | 'listSecrets'
  | 'putSecret'
  | 'deleteSecret'
  | 'createWebhook'
  | 'listWebhooks'
  | 'getWebhook'
  | 'patchWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'putProviderSecret'
  | 'listDeliveries'
  | 'getDelivery'
  | 'getDeliveryPayload'
  | 'resendDelivery'
  | 'createAutomation'
  | 'listAutomations'
  | 'getAutomation'
  | 'patchAutomation'
  | 'deleteAutomation'
  | 'testFilter'
  | 'applyDefinitions';

/** The operations whose body is required JSON. */
type BodyOperation =
  | 'createFactory'
  | 'putSecret'
  | 'createWebhook'
  | 'patchWebhook'
  | 'putProviderSecret'
  | 'createAutomation'
  | 'patchAutomation'
  | 'testFilter'
  | 'applyDefinitions';

/**
 * The management API's body limits (docs/management-api.md, "Body limits"): `bodyBytes` for every
 * body, `testFilterBytes` for a test-filter's, whose payload is a delivery and so never larger
 * than what the ingress accepts.
 */
export interface ManagementBodyLimits {
  bodyBytes: number;
  testFilterBytes: number;
}

/** The management API (docs/management-api.md), under the same base path, auth and errors as the run API. */
export function controlOperations(
  control: ControlService,
  { readJson, requireBody, readEmpty }: JsonReaders,
  idempotent: IdempotentWrite,
  limits: ManagementBodyLimits,
): OperationHandlers<ControlOperation> {
  /** The body, read under its route's limit and its schema's value budget (json-readers.ts). */
  const requiredJson = async (request: Request, operation: BodyOperation) =>
    requireBody(
      await readJson(request, ROUTES[operation].body.schema, operation === 'testFilter' ? limits.testFilterBytes : limits.bodyBytes),
      'request',
    );
  /** Every management POST takes an `Idempotency-Key` (docs/run-api.md, "Idempotency"). */
  const post = (ctx: ApiContext, operation: string, body: unknown, status: number, write: () => Promise<unknown>) =>
    idempotent(ctx.principal, withKey(ctx.request, operation, body).idempotency, async () => ({ status, body: await write() }));
  const noContent = () => new Response(null, { status: 204 });
  const base = ({ request, url }: ApiContext) => mountedBase(request, url);

  return {
    createFactory: async (ctx) => {
      const body = await requiredJson(ctx.request, 'createFactory');
      return post(ctx, 'create factory', body, 201, () => control.createFactory(ctx.principal, body));
    },
    listFactories: async ({ principal }) => jsonResponse(await control.listFactories(principal)),
    getFactory: async ({ principal }, { factoryUid }) => jsonResponse(await control.getFactory(principal, factoryUid)),

    listSecrets: async ({ principal }) => jsonResponse(await control.listSecrets(principal)),
    putSecret: async ({ principal, request }, { name }) => {
      const { created, secret } = await control.putSecret(principal, name, await requiredJson(request, 'putSecret'));
      return jsonResponse(secret, created ? 201 : 200);
    },
    deleteSecret: async ({ principal }, { name }) => {
      await control.deleteSecret(principal, name);
      return noContent();
    },

    createWebhook: async (ctx, { factoryUid }) => {
      const body = await requiredJson(ctx.request, 'createWebhook');
      return post(ctx, `create webhook ${factoryUid}`, body, 201, () => control.createWebhook(ctx.principal, factoryUid, body, base(ctx)));
    },
    listWebhooks: async (ctx, { factoryUid }) => jsonResponse(await control.listWebhooks(ctx.principal, factoryUid, base(ctx))),
    getWebhook: async (ctx, { factoryUid, webhookUid }) =>
      jsonResponse(await control.getWebhook(ctx.principal, factoryUid, webhookUid, base(ctx))),
    patchWebhook: async (ctx, { factoryUid, webhookUid }) =>
      jsonResponse(
        await control.patchWebhook(ctx.principal, factoryUid, webhookUid, await requiredJson(ctx.request, 'patchWebhook'), base(ctx)),
      ),
    deleteWebhook: async ({ principal }, { factoryUid, webhookUid }) => {
      await control.deleteWebhook(principal, factoryUid, webhookUid);
      return noContent();
    },
    rotateWebhookSecret: async (ctx, { factoryUid, webhookUid }) => {
      const body = await readJson(ctx.request, ROUTES.rotateWebhookSecret.body.schema, limits.bodyBytes);
      return post(ctx, `rotate ${factoryUid}/${webhookUid}`, body, 200, () =>
        control.rotateSecret(ctx.principal, factoryUid, webhookUid, body, base(ctx)),
      );
    },
    putProviderSecret: async (ctx, { factoryUid, webhookUid }) =>
      jsonResponse(
        await control.putProviderSecret(
          ctx.principal,
          factoryUid,
          webhookUid,
          await requiredJson(ctx.request, 'putProviderSecret'),
          base(ctx),
        ),
      ),

    listDeliveries: async ({ principal, url }, { factoryUid, webhookUid }) =>
      jsonResponse(await control.listDeliveries(principal, factoryUid, webhookUid, queryObject(url))),
    getDelivery: async ({ principal }, { factoryUid, webhookUid, deliveryId }) =>
      jsonResponse(await control.getDelivery(principal, factoryUid, webhookUid, deliveryId)),
    resendDelivery: async (ctx, { factoryUid, webhookUid, deliveryId }) => {
      await readEmpty(ctx.request, 'resend');
      return post(ctx, `resend ${factoryUid}/${webhookUid}/${deliveryId}`, {}, 201, () =>
        control.resendDelivery(ctx.principal, factoryUid, webhookUid, deliveryId),
      );
    },
    getDeliveryPayload: async ({ principal }, { factoryUid, webhookUid, deliveryId }) => {
      const bytes = await control.getDeliveryPayload(principal, factoryUid, webhookUid, deliveryId);
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes.byteLength),
          'x-content-type-options': 'nosniff',
        },
      });
    },

    createAutomation: async (ctx, { factoryUid }) => {
      const body = await requiredJson(ctx.request, 'createAutomation');
      return post(ctx, `create automation ${factoryUid}`, body, 201, () => control.createAutomation(ctx.principal, factoryUid, body));
    },
    listAutomations: async ({ principal }, { factoryUid }) => jsonResponse(await control.listAutomations(principal, factoryUid)),
    getAutomation: async ({ principal }, { factoryUid, automationId }) =>
      jsonResponse(await control.getAutomation(principal, factoryUid, automationId)),
    patchAutomation: async ({ principal, request }, { factoryUid, automationId }) =>
      jsonResponse(await control.patchAutomation(principal, factoryUid, automationId, await requiredJson(request, 'patchAutomation'))),
    deleteAutomation: async ({ principal }, { factoryUid, automationId }) => {
      await control.deleteAutomation(principal, factoryUid, automationId);
      return noContent();
    },
    testFilter: async (ctx, { factoryUid, automationId }) => {
      const body = await requiredJson(ctx.request, 'testFilter');
      return post(ctx, `test filter ${factoryUid}/${automationId}`, body, 200, () =>
        control.testFilter(ctx.principal, factoryUid, automationId, body),
      );
    },
    applyDefinitions: async (ctx, { factoryUid }) => {
      const body = await requiredJson(ctx.request, 'applyDefinitions');
      return post(ctx, `apply ${factoryUid}`, body, 200, () => control.applyDefinitions(ctx.principal, factoryUid, body, base(ctx)));
    },
  };
}
