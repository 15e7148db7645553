export { type ContainerExecutor, containerExecutor } from './container-executor.js';
export { type ContainerHarness, type ContainerHarnesses, HARNESS_LABEL_PREFIX } from './container-harness.js';
export {
  type ContainerSpec,
  type ContainerState,
  type ContainerSummary,
  type EngineClient,
  EngineError,
  type EngineVersion,
} from './engine-client.js';
export { LABELS } from './labels.js';
export { CONTAINER_DEFAULTS, type ContainerExecutorOptions } from './options.js';
