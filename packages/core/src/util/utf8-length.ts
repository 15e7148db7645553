/**
 * The number of bytes `text` takes in UTF-8, without encoding it: 1 per code unit below U+0080, 2
 * below U+0800, 4 per surrogate pair, 3 for the rest (a lone surrogate too, as the U+FFFD an
 * encoder writes for it). What a page's byte budget counts (docs/run-api.md, "A page").
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // two units, four bytes
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
