const MAX_TITLE = 80;

/** A title for an untitled run: the prompt's first non-empty line, shortened at a word boundary. */
export function titleFromPrompt(prompt: string, fallback: string): string {
  const line = prompt
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '');
  if (!line) return fallback;
  if (line.length <= MAX_TITLE) return line;
  let cut = line.slice(0, MAX_TITLE - 1);
  // Never split a surrogate pair (an emoji, say): a lone half is not valid Unicode.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_TITLE / 2 ? cut.slice(0, space) : cut}…`;
}
