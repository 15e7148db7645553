import { DELIVERY_STAT_LABELS } from '@agentrun/client';
import type { DeliveryStats } from '@agentrun/core/api';
import { Link } from '../../router.js';
import { RANGE_WORDS } from './amounts.js';
import { LABEL_COLOURS } from './colours.js';
import { StackedChart } from './stacked-chart.js';
import { useWebhookNames } from './webhook-names.js';

/** A chart per webhook of its deliveries by label over time; webhooks with none in the range are not listed. */
export function DeliveriesByWebhook({ stats }: { stats: DeliveryStats }) {
  const names = useWebhookNames(stats.webhooks);
  if (stats.webhooks.length === 0) {
    return (
      <p class="empty">
        No webhook delivery in {RANGE_WORDS[stats.range]}: add a webhook on a factory's page (<Link to="/factories">Factories</Link>) and
        give its URL to your provider.
      </p>
    );
  }
  return (
    <div class="chart-grid">
      {stats.webhooks.map((w) => (
        <div key={`${w.factory_uid}/${w.webhook_uid}`}>
          <StackedChart
            id={`deliveries-${w.webhook_uid}`}
            title={`Deliveries to ${names.get(w.webhook_uid) ?? w.webhook_uid}`}
            buckets={stats.buckets}
            stepSeconds={stats.step_seconds}
            series={DELIVERY_STAT_LABELS.map((label) => ({ label, colour: LABEL_COLOURS[label], values: w.by_label[label] }))}
          />
          <Link to={`/factories/${encodeURIComponent(w.factory_uid)}/webhooks/${encodeURIComponent(w.webhook_uid)}`}>
            {names.get(w.webhook_uid) ?? w.webhook_uid}: each delivery
          </Link>
        </div>
      ))}
    </div>
  );
}
