/**
 * JSON as a tree to read: objects and arrays fold (native `<details>`, so the keyboard works),
 * strings, numbers, booleans and null each styled as what they are.
 */
export function JsonView({ value }: { value: unknown }) {
  return (
    <div class="json">
      <JsonNode value={value} name={undefined} open />
    </div>
  );
}

function JsonNode({ value, name, open }: { value: unknown; name: string | undefined; open?: boolean }) {
  const key = name === undefined ? null : <span class="json-key">{name}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    if (entries.length === 0)
      return (
        <div class="json-leaf">
          {key}
          <span class="json-punct">{Array.isArray(value) ? '[]' : '{}'}</span>
        </div>
      );
    return (
      <details class="json-branch" open={open ?? entries.length <= 20}>
        <summary>
          {key}
          <span class="json-punct">{summary}</span>
        </summary>
        {entries.map(([k, v]) => (
          <JsonNode key={k} value={v} name={k} />
        ))}
      </details>
    );
  }
  const kind = value === null ? 'null' : typeof value;
  return (
    <div class="json-leaf">
      {key}
      <span class={`json-${kind}`}>{JSON.stringify(value)}</span>
    </div>
  );
}
