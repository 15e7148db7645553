import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/**
 * `AGENTRUN_METRICS_PORT`: agentrun's OpenTelemetry metrics (docs/operations.md, "Metrics and
 * traces") served for Prometheus at `http://<host>:<port>/metrics`, by the OpenTelemetry
 * Prometheus exporter on a listener of its own (not the API's port, so the scrape needs no API key
 * and the metrics are not public where the API is). Registered as the global meter provider,
 * which `createAgentRun` reads, so this runs before it.
 */
export async function servePrometheusMetrics(port: number, host: string): Promise<{ url: string; close(): Promise<void> }> {
  const exporter = await new Promise<PrometheusExporter>((resolve, reject) => {
    const started = new PrometheusExporter({ port, host, endpoint: '/metrics' }, (error) => (error ? reject(error) : resolve(started)));
  });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
    close: () => provider.shutdown(),
  };
}
