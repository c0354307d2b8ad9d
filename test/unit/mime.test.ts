/**
 * The raw MIME of Sightline's e-mails (src/lib/text/mime.ts): any text survives the header and
 * body encodings unchanged, every line stays within the RFCs' lengths, and no value can start
 * a header or a part of its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerText, mimeMessage, quotedPrintable } from '../../src/lib/text/mime.ts';
import { withoutControlCharacters } from '../../src/lib/text/text.ts';
import { decodeQuotedPrintable, headerOf } from '../support/mime.ts';

/** Any text, and text made of what the encodings treat specially (`=`, hex digits, spaces, line ends). */
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({
    unit: fc.constantFrom('=', 'A', '3', 'D', 'f', ' ', '\t', '\n', '\r\n', 'é', '—', '?', '_'),
    maxLength: 200,
  }),
);

const message = (subject: string, text: string) =>
  mimeMessage({
    from: { name: 'Sightline', address: 'reports@example.com' },
    to: 'owner@example.com',
    subject,
    headers: { 'Auto-Submitted': 'auto-generated' },
    parts: [
      { type: 'text/plain', text },
      { type: 'text/html', text: `<p>${text}</p>` },
    ],
    date: new Date(Date.UTC(2026, 10, 26, 5, 21, 1)),
  });

describe('mimeMessage', () => {
  it('writes the headers and parts mail clients expect, with CRLF line ends', () => {
    const raw = message('example.com: 12 visitors', 'Hello');
    const lines = raw.split('\r\n');
    expect(lines.slice(0, 3)).toEqual([
      'Date: Thu, 26 Nov 2026 05:21:01 +0000',
      'From: Sightline <reports@example.com>',
      'To: <owner@example.com>',
    ]);
    expect(lines[3]).toMatch(/^Message-ID: <[0-9a-f]{32}@example\.com>$/);
    expect(lines.slice(4, 7)).toEqual([
      'Subject: example.com: 12 visitors',
      'MIME-Version: 1.0',
      'Auto-Submitted: auto-generated',
    ]);
    expect(lines[7]).toMatch(/^Content-Type: multipart\/alternative; boundary="=_[0-9a-f]{32}"$/);
    expect(raw.replace(/\r\n/g, '')).not.toMatch(/[^\r]\n/);
    expect(raw.match(/Content-Transfer-Encoding: quoted-printable/g)).toHaveLength(2);
    // One part: no multipart.
    const one = mimeMessage({
      from: { name: 'Sightline', address: 'a@example.com' },
      to: 'b@example.com',
      subject: 'Hi',
      parts: [{ type: 'text/plain', text: 'Só' }],
    });
    expect(one).toContain('Content-Type: text/plain; charset=utf-8\r\n');
    expect(one).not.toContain('multipart');
    expect(decodeQuotedPrintable(one.split('\r\n\r\n')[1] ?? '')).toBe('Só');
  });

  it('keeps any subject and body exactly, in lines of at most 78 characters', () => {
    fc.assert(
      fc.property(anyText, anyText, (subject, text) => {
        const raw = message(subject, text);
        const oneLineSubject = withoutControlCharacters(subject);
        expect(headerOf(raw, 'Subject')).toBe(oneLineSubject);
        const body = raw.split(/Content-Transfer-Encoding: quoted-printable\r\n\r\n/)[1] ?? '';
        const plain = body.slice(0, body.indexOf('\r\n--=_'));
        expect(decodeQuotedPrintable(plain)).toBe(text.replace(/\r?\n/g, '\r\n'));
        for (const line of raw.split('\r\n'))
          if (!line.startsWith('Content-Type: multipart') && !/^Subject: [\x20-\x7e]*$/.test(line))
            expect(line.length).toBeLessThanOrEqual(78);
      }),
    );
  });

  it('lets no value start a header or a part of its own', () => {
    const raw = message('x\r\nBcc: victim@example.com', 'a\r\n--=_x\r\nContent-Type: text/html');
    expect(raw.split('\r\n').filter((l) => l.startsWith('Bcc:'))).toEqual([]);
    const boundary = /boundary="([^"]+)"/.exec(raw)?.[1] ?? '';
    expect(raw.split(`--${boundary}`)).toHaveLength(4);
    expect(headerText('tab\there')).toBe('tab here');
    expect(quotedPrintable('ends with a space ')).toBe('ends with a space=20');
  });
});
