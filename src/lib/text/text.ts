/** True when `text` contains a control character (C0 U+0000–U+001F, DEL, or C1 U+0080–U+009F). */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** `text` with every run of control characters (line breaks included) replaced by one space. */
export function withoutControlCharacters(text: string): string {
  let out = '';
  let inRun = false;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (control && !inRun) out += ' ';
    else if (!control) out += ch;
    inRun = control;
  }
  return out;
}

/**
 * `text` as the URL of a hit's page keeps it (src/ingest/steps/page.ts): tabs and line breaks
 * dropped, as URL parsing drops them, and every other control character percent-escaped
 * (`%01`, `%7F`, `%C2%85`), as it escapes them in a path or query.
 */
export function asUrlPath(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code === 0x09 || code === 0x0a || code === 0x0d) continue;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? encodeURIComponent(ch) : ch;
  }
  return out;
}
