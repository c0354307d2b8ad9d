import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/client.ts';
import { containsText } from '../../../src/lib/text/contains-text.ts';

/** Does D1 find `term` in `value` the way the search of a list or a statistic does? */
async function contains(value: string, term: string): Promise<boolean> {
  const result = await createDb(env.DB).run(
    sql`SELECT ${containsText(sql`${value}`, term)} AS found`,
  );
  return (result.results[0] as { found: number }).found === 1;
}

describe('containsText', () => {
  it.each([
    ['x50%_a\\by', '50%_A\\b', true],
    ['example.com', 'example', true],
    ['www.example.com', 'Example.COM', true],
    ['EXAMPLE.COM', 'example.com', true],
    ['example.com', '', true],
    ['abc', '%', false],
    ['a%c', '%', true],
    ['abc', '_', false],
    ['a_c', '_', true],
    ['ab', '\\', false],
    ['a\\b', '\\', true],
    ['ab', '%%', false],
    ['a%%b', '%%', true],
    ['axb', 'a_b', false],
    ['/deal/a_b', 'a_b', true],
    ['/deal/100x-off', '100%', false],
    ['/deal/100%25_off', '100%', true],
    ['example.com', '*', false],
    ['example.com', '?', false],
    ['b', '[a-z]', false],
    ['[A-Z]', '[a-z]', true],
    ['example.com', "' OR 1=1 --", false],
    ['bücher.example', 'BÜCHER', true],
    ['BÜCHER.example', 'bücher', true],
    ['/ÚSTÍ-nad-labem', 'ústí-NAD', true],
    ['/ústí', 'ÚSTÍ', true],
    ['Σοφία', 'ΣΟΦΊΑ', true],
    ['İstanbul', 'İSTANBUL', true],
    ['/ústí', 'usti', false],
    ["it's", "IT'S", true],
    ['xn--bcher-kva.example', 'xn--bcher-kva', true],
    ['a  spaced  b', '  spaced  ', true],
    ['aspacedb', '  spaced  ', false],
  ])('%j contains %j: %s', async (value, term, found) => {
    expect(await contains(value, term)).toBe(found);
  });

  it('takes terms of any length (D1 refuses LIKE patterns over 50 bytes)', async () => {
    const term = 'A%_\\'.repeat(64);
    expect(await contains(`/x/${term.toLowerCase()}/y`, term)).toBe(true);
    expect(await contains(`/x/${term.slice(1)}`, term)).toBe(false);
    expect(await contains('\u00fc'.repeat(300), '\u00fc'.repeat(255))).toBe(true);
  });
});
