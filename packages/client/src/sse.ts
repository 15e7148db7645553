/**
 * A Server-Sent Events parser, as the HTML standard's "Parsing an event stream" reads one: lines
 * end with CRLF, LF or CR; `field: value` lines (one space after the colon dropped); lines
 * starting with `:` are comments (the server's heartbeats); an empty line dispatches the event.
 * It takes the text in chunks cut anywhere, even between a CR and its LF, so it can be fed
 * straight from a response body (docs/client.md, "Following a run: stream()").
 */

/** One dispatched event. */
export interface ServerSentEvent {
  /** The last `id:` seen so far in the stream (it carries over to later events, as the standard says). */
  id: string | undefined;
  /** The `event:` field, `message` when the event named none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
}

export class SseParser {
  #buffer = '';
  /** The last chunk ended on a CR: an LF opening the next one belongs to it. */
  #afterCR = false;
  #started = false;
  #lastId: string | undefined;
  #event = '';
  #data: string[] = [];

  /** Feed the next piece of text; answers the events it completed. */
  push(chunk: string): ServerSentEvent[] {
    if (chunk === '') return [];
    let text = chunk;
    if (this.#afterCR && text.startsWith('\n')) text = text.slice(1);
    this.#afterCR = false;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.#buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i++) {
      const c = this.#buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      const event = this.#line(this.#buffer.slice(start, i));
      if (event) events.push(event);
      if (c === '\r') {
        if (i + 1 === this.#buffer.length) this.#afterCR = true;
        else if (this.#buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#lastId = value;
    // Other fields (`retry`, unknown ones) are ignored: the client keeps its own backoff.
    return undefined;
  }

  #dispatch(): ServerSentEvent | undefined {
    const event: ServerSentEvent = { id: this.#lastId, event: this.#event || 'message', data: this.#data.join('\n') };
    const hadData = this.#data.length > 0;
    this.#event = '';
    this.#data = [];
    // An event with no data line is not dispatched (the standard); its id still counts.
    return hadData ? event : undefined;
  }
}
