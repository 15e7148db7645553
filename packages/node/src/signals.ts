import type { ServerResponse } from 'node:http';

/** The abort reason when the client goes away before its response is finished. */
export const clientGone = () => new DOMException('the client disconnected before the response was finished', 'AbortError');

/**
 * A signal that aborts if `res` closes before it finished: the client disconnected. Node's
 * request emits 'close' as soon as its body has been read, so only the response can tell.
 */
export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) {
    if (!res.writableFinished) controller.abort(clientGone());
  } else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(clientGone());
    });
  }
  return controller.signal;
}
