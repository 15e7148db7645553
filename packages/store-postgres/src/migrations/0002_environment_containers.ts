/**
 * An environment's container image and limits (docs/repositories.md, "Container image and
 * limits"), both optional: NULL is "the executor's own". `limits` holds core's `ContainerLimits`
 * as JSON (`{"memoryMb":…,"cpus":…,"pids":…,"network":…}`, each key optional); core checks both at save.
 */
export const up = `
ALTER TABLE environments ADD COLUMN image text;
ALTER TABLE environments ADD COLUMN limits jsonb;
`;
