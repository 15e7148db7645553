import { describeStoreConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createAgentRun } from '../src/index.js';

class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

// The store as agentrun uses it when a meter records (telemetry/instrumented-store.ts): every
// call timed through a Proxy. It must behave exactly as the store it wraps.
const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
describeStoreConformance('memory, timed by the telemetry wrapper', {
  create: () => createAgentRun({ store: createMemoryStore(), telemetry: { meterProvider } }).store,
  listCases: 25,
});
