/** A choice of a few, as pressed/unpressed buttons in a row, named by its (hidden) legend. */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly { value: T; text: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset class="segmented">
      <legend class="visually-hidden">{label}</legend>
      {options.map((o) => (
        <button type="button" key={o.value} aria-pressed={o.value === value} onClick={() => onChange(o.value)}>
          {o.text}
        </button>
      ))}
    </fieldset>
  );
}
