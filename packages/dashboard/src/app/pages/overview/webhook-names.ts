import { useEffect, useRef, useState } from 'preact/hooks';
import { useClient } from '../../api-context.js';

interface WebhookRef {
  factory_uid: string;
  webhook_uid: string;
}

/**
 * The names of the webhooks the delivery stats list, read once each (a webhook's name does not
 * change), so the charts are titled by name; a webhook not read yet, or not readable, goes by its UID.
 */
export function useWebhookNames(webhooks: readonly WebhookRef[]): ReadonlyMap<string, string> {
  const client = useClient();
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  const asked = useRef(new Set<string>());
  const wanted = webhooks.map((w) => `${w.factory_uid}/${w.webhook_uid}`).join(' ');
  useEffect(() => {
    for (const w of webhooks) {
      if (asked.current.has(w.webhook_uid)) continue;
      asked.current.add(w.webhook_uid);
      client.webhooks.get(w.factory_uid, w.webhook_uid).then(
        (view) => setNames((m) => new Map(m).set(w.webhook_uid, view.name)),
        () => undefined,
      );
    }
  }, [client, wanted]);
  return names;
}
