/** A run's state as a badge whose colour and word both tell it (docs/state-machine.md). */
export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${state.toLowerCase()}`}>{state}</span>;
}
