/**
 * A shared link's embed code (src/sharing/embed-code.ts): the frame in the theme asked for, and
 * the script that takes the frame's height only from Sightline's origin — the code docs/GUIDE.md
 * ("Sharing") shows, exactly.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { embedCode, embedSrc, embedThemeOf } from '../../src/sharing/embed-code.ts';

const EMBED = 'https://stats.example.com/embed#<token>';

describe('the embed code', () => {
  it('is the one docs/GUIDE.md shows', () => {
    const guide = readFileSync(new URL('../../docs/GUIDE.md', import.meta.url), 'utf8');
    const shown = /\*\*Embedding\*\*[\s\S]*?```html\n([\s\S]*?)\n```/.exec(guide)?.[1];
    expect(shown).toBe(embedCode(EMBED));
  });

  it('checks the origin of the embed it frames', () => {
    const code = embedCode('http://localhost:8787/embed#abc');
    expect(code).toContain('event.origin !== "http://localhost:8787"');
    expect(code).toContain('<iframe src="http://localhost:8787/embed#abc" id=');
  });

  it('puts a theme before the #, so that the page that opens the link has it too', () => {
    expect(embedSrc(EMBED, 'dark')).toBe('https://stats.example.com/embed?theme=dark#<token>');
    expect(embedSrc(EMBED, 'light')).toBe('https://stats.example.com/embed?theme=light#<token>');
    expect(embedSrc(EMBED)).toBe(EMBED);
    expect(embedCode(EMBED, 'dark')).toContain('src="https://stats.example.com/embed?theme=dark#');
  });

  it("reads light and dark; anything else is the reader's own", () => {
    expect(['light', 'dark', 'auto', 'Dark', '', undefined].map(embedThemeOf)).toEqual([
      'light',
      'dark',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
