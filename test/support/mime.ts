/** Reading the raw MIME messages Sightline writes (src/lib/text/mime.ts), in tests. */

/** The bytes of a binary string (one character a byte), as UTF-8 text. */
const utf8 = (binary: string) =>
  new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));

/** A header's value, unfolded, its RFC 2047 encoded words decoded (`Subject`, `From`, …). */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const match = new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, 'mi').exec(head);
  if (!match) return undefined;
  const value = (match[1] ?? '').replace(/\r?\n[ \t]/g, ' ');
  // Adjacent encoded words join without the space between them (RFC 2047, section 6.2).
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?B\?([^?]*)\?=/gi, (_, b64: string) => utf8(atob(b64)));
}

/** Quoted-printable text decoded: soft line breaks joined, `=XX` bytes read as UTF-8. */
export function decodeQuotedPrintable(text: string): string {
  return utf8(
    text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      ),
  );
}
