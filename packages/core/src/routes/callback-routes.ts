import * as v from 'valibot';
import {
  CallbackDeliveryListSchema,
  CallbackDeliveryViewSchema,
  CallbackListSchema,
  CallbackViewSchema,
  CallbackWithSecretSchema,
  CreateCallbackSchema,
  PatchCallbackSchema,
} from '../callbacks/schemas.js';
import { ListDeliveriesQuerySchema } from '../models/list-queries.js';
import { route } from './route.js';

// The run-state callbacks' routes (docs/callbacks.md, "The API"), joined into the route table
// (table.ts). One collection per team; an endpoint names a factory to hear only its runs.

const callback = { callbackId: 'The callback ID.' } as const;
const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const CALLBACK_ROUTES = {
  createCallback: route({
    method: 'POST',
    area: 'api',
    path: '/callbacks',
    auth: 'api_key',
    tag: 'callbacks',
    summary: 'Register a callback endpoint for run events (its signing secret is shown in this answer only).',
    params: {},
    body: { schema: CreateCallbackSchema, presence: 'required' },
    responses: { 201: json('The endpoint and its signing secret.', CallbackWithSecretSchema) },
    idempotent: true,
  }),
  listCallbacks: route({
    method: 'GET',
    area: 'api',
    path: '/callbacks',
    auth: 'api_key',
    tag: 'callbacks',
    summary: "The team's callback endpoints, oldest first.",
    params: {},
    responses: { 200: json('The endpoints.', CallbackListSchema) },
  }),
  getCallback: route({
    method: 'GET',
    area: 'api',
    path: '/callbacks/{callbackId}',
    auth: 'api_key',
    tag: 'callbacks',
    summary: 'One callback endpoint.',
    params: callback,
    responses: { 200: json('The endpoint.', CallbackViewSchema) },
  }),
  patchCallback: route({
    method: 'PATCH',
    area: 'api',
    path: '/callbacks/{callbackId}',
    auth: 'api_key',
    tag: 'callbacks',
    summary: 'Change the URL, event types or description of an endpoint, or enable or disable it.',
    params: callback,
    body: { schema: PatchCallbackSchema, presence: 'required' },
    responses: { 200: json('The endpoint.', CallbackViewSchema) },
  }),
  deleteCallback: route({
    method: 'DELETE',
    area: 'api',
    path: '/callbacks/{callbackId}',
    auth: 'api_key',
    tag: 'callbacks',
    summary: 'Delete an endpoint with its delivery log.',
    params: callback,
    responses: { 204: { description: 'Done; no body.', content: 'none' } },
  }),
  rotateCallbackSecret: route({
    method: 'POST',
    area: 'api',
    path: '/callbacks/{callbackId}/rotate-secret',
    auth: 'api_key',
    tag: 'callbacks',
    summary: "Replace an endpoint's signing secret (the new one is shown in this answer only).",
    params: callback,
    body: { schema: v.strictObject({}), presence: 'optional' },
    responses: { 200: json('The endpoint and its new secret.', CallbackWithSecretSchema) },
    idempotent: true,
  }),
  listCallbackDeliveries: route({
    method: 'GET',
    area: 'api',
    path: '/callbacks/{callbackId}/deliveries',
    auth: 'api_key',
    tag: 'callbacks',
    summary: "An endpoint's deliveries with their attempts, newest first, in keyset pages.",
    params: callback,
    query: ListDeliveriesQuerySchema,
    responses: { 200: json('One page of the log.', CallbackDeliveryListSchema) },
  }),
  resendCallbackDelivery: route({
    method: 'POST',
    area: 'api',
    path: '/callbacks/{callbackId}/deliveries/{deliveryId}/resend',
    auth: 'api_key',
    tag: 'callbacks',
    summary: 'Send a logged delivery again (same webhook-id, a new retry window).',
    params: { ...callback, deliveryId: 'The delivery ID (its webhook-id).' },
    body: { schema: v.strictObject({}), presence: 'optional' },
    responses: { 202: json('The delivery, due now.', CallbackDeliveryViewSchema) },
    idempotent: true,
  }),
} as const;
