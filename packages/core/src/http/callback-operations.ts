import type { CallbackService } from '../callbacks/service.js';
import { ROUTES } from '../routes/table.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type CallbackOperation =
  | 'createCallback'
  | 'listCallbacks'
  | 'getCallback'
  | 'patchCallback'
  | 'deleteCallback'
  | 'rotateCallbackSecret'
  | 'listCallbackDeliveries'
  | 'resendCallbackDelivery';

/** The callbacks' routes (docs/callbacks.md, "The API"), with the management API's body limit and idempotency. */
export function callbackOperations(
  callbacks: CallbackService,
  { readJson, requireBody, readEmpty }: JsonReaders,
  idempotent: IdempotentWrite,
  bodyBytes: number,
): OperationHandlers<CallbackOperation> {
  const body = async (request: Request, operation: 'createCallback' | 'patchCallback') =>
    requireBody(await readJson(request, ROUTES[operation].body.schema, bodyBytes), 'request');
  return {
    createCallback: async (ctx) => {
      const input = await body(ctx.request, 'createCallback');
      // Every management POST takes an `Idempotency-Key` (docs/run-api.md, "Idempotency").
      return idempotent(ctx.principal, withKey(ctx.request, 'create callback', input).idempotency, async () => ({
        status: 201,
        body: await callbacks.create(ctx.principal, input),
      }));
    },
    listCallbacks: async ({ principal }) => jsonResponse(await callbacks.list(principal)),
    getCallback: async ({ principal }, { callbackId }) => jsonResponse(await callbacks.get(principal, callbackId)),
    patchCallback: async ({ principal, request }, { callbackId }) =>
      jsonResponse(await callbacks.patch(principal, callbackId, await body(request, 'patchCallback'))),
    deleteCallback: async ({ principal }, { callbackId }) => {
      await callbacks.delete(principal, callbackId);
      return new Response(null, { status: 204 });
    },
    rotateCallbackSecret: async (ctx, { callbackId }) => {
      await readEmpty(ctx.request, 'rotate-secret');
      return idempotent(ctx.principal, withKey(ctx.request, `rotate callback ${callbackId}`, {}).idempotency, async () => ({
        status: 200,
        body: await callbacks.rotateSecret(ctx.principal, callbackId),
      }));
    },
    listCallbackDeliveries: async ({ principal, url }, { callbackId }) =>
      jsonResponse(await callbacks.listDeliveries(principal, callbackId, queryObject(url))),
    resendCallbackDelivery: async (ctx, { callbackId, deliveryId }) => {
      await readEmpty(ctx.request, 'resend');
      return idempotent(ctx.principal, withKey(ctx.request, `resend callback ${callbackId}/${deliveryId}`, {}).idempotency, async () => ({
        status: 202,
        body: await callbacks.resend(ctx.principal, callbackId, deliveryId),
      }));
    },
  };
}
