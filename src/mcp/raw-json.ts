/**
 * JSON texts put into a message by reference and spliced whole into its serialisation: a tool's structured content
 * is the REST body itself, neither parsed nor serialised a second time (D141). A stand-in is an object of one key
 * made of a random prefix, which nothing else in the message can spell unescaped: inside a text (the same body as
 * text content, say) its quotes are escaped.
 */
import { randomUUID } from 'node:crypto';

export class RawJson {
  private readonly prefix = `raw-json:${randomUUID()}:`;
  private readonly texts: string[] = [];

  /** Whether any text is held (none: an answer's bytes need no filling, nor decoding to a string). */
  get holding(): boolean {
    return this.texts.length > 0;
  }

  /** A stand-in for `text`, the JSON text of an object, replaced by it in `fill`. */
  hold(text: string): Record<string, unknown> {
    this.texts.push(text);
    return { [this.prefix + (this.texts.length - 1)]: true };
  }

  /** `json`, a message serialised with stand-ins, with each replaced by the text it holds. */
  fill(json: string): string {
    let filled = json;
    this.texts.forEach((text, index) => {
      const standIn = `{"${this.prefix}${index}":true}`;
      const at = filled.indexOf(standIn);
      if (at >= 0) filled = filled.slice(0, at) + text + filled.slice(at + standIn.length);
    });
    return filled;
  }
}
