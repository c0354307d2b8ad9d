/**
 * `npm run user:rotate-key -- --email E [--remote] [--json]`
 * Gives an owner a new API key; the old one stops working at once.
 */
import { parseArgs } from 'node:util';
import { rotateApiKey } from '../src/accounts/api-keys.ts';
import { findOwnerByEmail } from '../src/accounts/owners.ts';
import { fail, parseOptions, targetOptions, withDatabase } from './lib/d1.ts';

const { values } = parseOptions(() =>
  parseArgs({
    options: {
      email: { type: 'string' },
      ...targetOptions,
      json: { type: 'boolean', default: false },
    },
    strict: true,
  }),
);
if (values.email === undefined)
  fail('usage: npm run user:rotate-key -- --email E [--remote] [--json]');

try {
  const result = await withDatabase(
    { remote: values.remote, persistTo: values['persist-to'] },
    async (db) => {
      const owner = await findOwnerByEmail(db, values.email as string);
      if (!owner) return null;
      return { id: owner.id, email: owner.email, apiKey: await rotateApiKey(db, owner.id) };
    },
  );
  if (!result) fail(`no owner with email ${values.email}`);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ id: result.id, email: result.email, api_key: result.apiKey })}\n`,
    );
  } else {
    process.stdout.write(
      `New API key for <${result.email}> (the old key no longer works):\n${result.apiKey}\n`,
    );
  }
} catch (err) {
  fail(String(err));
}
