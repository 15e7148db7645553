import {
  createNoopMeter,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

/**
 * Where agentrun's metrics and spans go (docs/operations.md, "Metrics and traces"). By default the
 * global providers a host registered with its OpenTelemetry SDK before `createAgentRun`; `false`
 * turns telemetry off even when an SDK is there.
 */
export interface TelemetryOptions {
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
}

export interface TelemetryProviders {
  meter: Meter | undefined;
  tracer: Tracer | undefined;
}

const SCOPE = '@agentrun/core';
const NOOP_METER = createNoopMeter().constructor;

/**
 * The meter and tracer to use, each `undefined` when nothing would record what it makes: no
 * provider given and none registered globally. Deciding this once, at creation, is what makes the
 * instrumentation free without an SDK: the hooks are not called at all, no attribute object is
 * built (measured in `npm run bench -- ingress`). So the SDK is registered before `createAgentRun`.
 */
export function resolveProviders(options: TelemetryOptions | false | undefined): TelemetryProviders {
  if (options === false) return { meter: undefined, tracer: undefined };
  const meter = (options?.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const tracerProvider = options?.tracerProvider ?? trace.getTracerProvider();
  // The global tracer provider is a proxy; without a registered SDK it has no delegate.
  const noTracer = tracerProvider instanceof ProxyTracerProvider && tracerProvider.getDelegateTracer(SCOPE) === undefined;
  return {
    meter: meter.constructor === NOOP_METER ? undefined : meter,
    tracer: noTracer ? undefined : tracerProvider.getTracer(SCOPE),
  };
}
