import type { ControlService } from '../control/control-service.js';
import { notFound } from '../errors.js';
import { ROUTES } from '../routes/table.js';
import type { JsonReaders } from './json-readers.js';
import { mountedBase } from './mount-path.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type SourceOperation =
  | 'putFactorySource'
  | 'getFactorySource'
  | 'deleteFactorySource'
  | 'listFactorySourceApplies'
  | 'syncFactorySource'
  | 'pushFactorySource';

/** A factory's source routes and its push endpoint (docs/repositories.md, "Factories from a repository"). */
export function sourceOperations(
  control: ControlService,
  { readJson, requireBody, readEmpty }: JsonReaders,
  bodyBytes: number,
): OperationHandlers<SourceOperation> {
  return {
    putFactorySource: async ({ principal, request, url }, { factoryUid }) => {
      const body = requireBody(await readJson(request, ROUTES.putFactorySource.body.schema, bodyBytes), 'request');
      const { created, source } = await control.putSource(principal, factoryUid, body, mountedBase(request, url));
      return jsonResponse(source, created ? 201 : 200);
    },
    getFactorySource: async ({ principal, request, url }, { factoryUid }) =>
      jsonResponse(await control.getSource(principal, factoryUid, mountedBase(request, url))),
    deleteFactorySource: async ({ principal }, { factoryUid }) => {
      await control.deleteSource(principal, factoryUid);
      return new Response(null, { status: 204 });
    },
    listFactorySourceApplies: async ({ principal, url }, { factoryUid }) =>
      jsonResponse(await control.listSourceApplies(principal, factoryUid, queryObject(url))),
    syncFactorySource: async ({ principal, request }, { factoryUid }) => {
      await readEmpty(request, 'sync');
      return jsonResponse(await control.syncSource(principal, factoryUid));
    },
    // The ingress decodes its own params: a bad encoding is no such endpoint.
    pushFactorySource: async ({ request }, { factoryUid }) => jsonResponse(await control.receivePush(request, decoded(factoryUid)), 202),
  };
}

function decoded(param: string): string {
  try {
    return decodeURIComponent(param);
  } catch {
    throw notFound('no such push endpoint');
  }
}
