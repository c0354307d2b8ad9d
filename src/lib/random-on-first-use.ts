/**
 * Values made at random on first use and never changed after: the server secrets in D1
 * (src/db/secrets.ts) and a website's daily salts in its event log. The first value stored
 * for a name wins, whoever made it; once the store has answered, the value is kept in memory,
 * so the store is asked once per name for as long as `kept` lives (an isolate, an object).
 */
import { randomBytes, toHex } from './crypto.ts';

/**
 * The value of `name`: the one in `kept`, else what `stored` answers — it stores a fresh
 * random value (32 bytes, hex, made by `fresh()`) unless the name already has one, and
 * answers the stored value. `stored` may answer at once or later (D1 is asynchronous, a
 * Durable Object's SQLite is not).
 */
export function randomOnFirstUse<T extends string | Promise<string>>(
  kept: Map<string, string>,
  name: string,
  stored: (fresh: () => string) => T,
): string | T {
  const known = kept.get(name);
  if (known) return known;
  const keep = (value: string) => {
    kept.set(name, value);
    return value;
  };
  const value = stored(() => toHex(randomBytes(32)));
  return typeof value === 'string' ? keep(value) : (value.then(keep) as T);
}
