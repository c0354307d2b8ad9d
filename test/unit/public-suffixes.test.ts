/**
 * The Public Suffix List as the Worker reads it (static/public-suffixes.txt, read by
 * src/websites/public-suffixes.ts) answers as tldts itself does, with the private section, for
 * every rule of the list, a name under each, and the names the list's own tests name.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'tldts';
import { describe, expect, it } from 'vitest';
import { suffixesText } from '../../scripts/build-suffixes.ts';
import { SUFFIXES_FILE } from '../../scripts/lib/public-suffixes.ts';
import { isSuffixIn, parseSuffixRules } from '../../src/websites/public-suffixes.ts';

const text = readFileSync(SUFFIXES_FILE, 'utf8');
const list = parseSuffixRules(text);
const byTldts = (domain: string) =>
  parse(domain, { allowPrivateDomains: true }).publicSuffix === domain;

describe('the public suffix list', () => {
  it('is the list of the installed tldts (build:suffixes --check)', async () => {
    expect(text).toBe(await suffixesText());
  });

  it('holds the ICANN and the private sections, their wildcards and exceptions', () => {
    expect(list.rules.size).toBeGreaterThan(9_000);
    for (const rule of ['co.uk', 'com', 'github.io', 'pages.dev', 'workers.dev', '*.ck'])
      expect(list.rules.has(rule), rule).toBe(true);
    expect(list.exceptions.has('www.ck')).toBe(true);
  });

  it('answers as tldts for every rule, a name under it and its parent', () => {
    const names = new Set<string>();
    for (const rule of [...list.rules, ...[...list.exceptions].map((e) => `!${e}`)]) {
      const name = rule.replace(/^!/, '').replace(/^\*\./, 'x.');
      names.add(name);
      names.add(`site.${name}`);
      const parent = name.split('.').slice(1).join('.');
      if (parent.includes('.')) names.add(parent);
    }
    const wrong = [...names].filter((name) => isSuffixIn(list, name) !== byTldts(name));
    expect(wrong).toEqual([]);
    expect(names.size).toBeGreaterThan(20_000);
  });

  it.each([
    ['co.uk', true],
    ['example.co.uk', false],
    ['github.io', true],
    ['someone.github.io', false],
    ['pages.dev', true],
    ['anything.ck', true],
    ['www.ck', false],
    ['kawasaki.jp', true],
    ['any.kawasaki.jp', true],
    ['city.kawasaki.jp', false],
    ['example.com', false],
    ['example.unknown-tld', false],
  ])('%s is a public suffix: %s', (domain, expected) => {
    expect(isSuffixIn(list, domain)).toBe(expected);
    expect(byTldts(domain)).toBe(expected);
  });
});
