/**
 * The e-mails Sightline sends (reports, invitations), written as raw MIME for the `EMAIL`
 * binding: RFC 5322 headers with CRLF line ends, non-ASCII header text as RFC 2047 encoded
 * words, each body quoted-printable UTF-8 (RFC 2045) — one part, or several as
 * `multipart/alternative` (the plain text first, as mail clients prefer the last they can
 * show). No header value can start a header of its own: control characters become spaces.
 */
import { withoutControlCharacters } from './text.ts';

/** A part of a message: its type and its text. */
type MimePart = { type: 'text/plain' | 'text/html'; text: string };

type MimeMessage = {
  from: { name: string; address: string };
  to: string;
  subject: string;
  /** More headers, written as given after the standard ones (values made one line). */
  headers?: Record<string, string>;
  parts: MimePart[];
  /** The Date header's time (now by default). */
  date?: Date;
};

const CRLF = '\r\n';
const encoder = new TextEncoder();

/** A header value on one line: control characters (CR, LF, …) become spaces. */
const oneLine = withoutControlCharacters;

/** Base64 of some bytes. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Header text as people read it: printable ASCII as is; anything else as RFC 2047 encoded
 * words (`=?utf-8?B?…?=`), each at most 75 characters, on folded lines.
 */
export function headerText(value: string): string {
  const text = oneLine(value);
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  // 45 bytes of UTF-8 make 60 characters of base64: a word of 72 characters. A character is
  // never split between two words.
  const words: string[] = [];
  let chunk: number[] = [];
  for (const char of text) {
    const bytes = encoder.encode(char);
    if (chunk.length + bytes.length > 45) {
      words.push(`=?utf-8?B?${base64(Uint8Array.from(chunk))}?=`);
      chunk = [];
    }
    chunk.push(...bytes);
  }
  if (chunk.length > 0) words.push(`=?utf-8?B?${base64(Uint8Array.from(chunk))}?=`);
  return words.join(`${CRLF} `);
}

/**
 * Text as quoted-printable UTF-8: CRLF line ends, `=XX` for every byte that is not printable
 * ASCII (and for `=`, and a space or tab that ends a line), lines of at most 76 characters
 * with soft breaks (`=` at the end).
 */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      const bytes = encoder.encode(line);
      const tokens: string[] = [];
      bytes.forEach((byte, i) => {
        const last = i === bytes.length - 1;
        const plain =
          (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        tokens.push(
          plain
            ? String.fromCharCode(byte)
            : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`,
        );
      });
      const out: string[] = [];
      let current = '';
      for (const token of tokens) {
        if (current.length + token.length > 75) {
          out.push(`${current}=`);
          current = '';
        }
        current += token;
      }
      out.push(current);
      return out.join(CRLF);
    })
    .join(CRLF);
}

/** A random token for a boundary or a Message-ID. */
const randomToken = () => crypto.randomUUID().replaceAll('-', '');

/** The Date header's value (RFC 5322: `Thu, 26 Nov 2026 05:21:01 +0000`). */
const dateText = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');

/** A part's headers and body. */
const partText = (part: MimePart) =>
  [
    `Content-Type: ${part.type}; charset=utf-8`,
    'Content-Transfer-Encoding: quoted-printable',
    '',
    quotedPrintable(part.text),
  ].join(CRLF);

/** The message as raw MIME. */
export function mimeMessage(m: MimeMessage): string {
  const domain = m.from.address.split('@').at(-1) ?? 'localhost';
  const head = [
    `Date: ${dateText(m.date ?? new Date())}`,
    `From: ${headerText(m.from.name)} <${oneLine(m.from.address)}>`,
    `To: <${oneLine(m.to)}>`,
    `Message-ID: <${randomToken()}@${oneLine(domain)}>`,
    `Subject: ${headerText(m.subject)}`,
    'MIME-Version: 1.0',
    ...Object.entries(m.headers ?? {}).map(([name, value]) => `${name}: ${oneLine(value)}`),
  ];
  const [only] = m.parts;
  if (m.parts.length === 1 && only) return [...head, partText(only)].join(CRLF);
  const boundary = `=_${randomToken()}`;
  return [
    ...head,
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    ...m.parts.flatMap((part) => [`--${boundary}`, partText(part)]),
    `--${boundary}--`,
    '',
  ].join(CRLF);
}
