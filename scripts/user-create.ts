/**
 * `npm run user:create -- --email E --password P [--remote] [--json]`
 * Creates an owner and prints their API key once (with --json: one line
 * `{"id":…,"email":…,"api_key":…}`).
 */
import { parseArgs } from 'node:util';
import { createOwner, EmailTakenError, validateOwnerInput } from '../src/accounts/owners.ts';
import { fail, parseOptions, targetOptions, withDatabase } from './lib/d1.ts';

const { values } = parseOptions(() =>
  parseArgs({
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      ...targetOptions,
      json: { type: 'boolean', default: false },
    },
    strict: true,
  }),
);
if (values.email === undefined || values.password === undefined) {
  fail('usage: npm run user:create -- --email E --password P [--remote] [--json]');
}
const errors = validateOwnerInput(values.email, values.password);
const problems = Object.values(errors).flat();
if (problems.length > 0) fail(problems.join(' '));

try {
  const owner = await withDatabase(
    { remote: values.remote, persistTo: values['persist-to'] },
    (db) => createOwner(db, { email: values.email as string, password: values.password as string }),
  );
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ id: owner.id, email: owner.email, api_key: owner.apiKey })}\n`,
    );
  } else {
    process.stdout.write(
      `Created owner ${owner.id} <${owner.email}>.\nAPI key (shown only now; store it safely):\n${owner.apiKey}\n`,
    );
  }
} catch (err) {
  fail(err instanceof EmailTakenError ? err.message : String(err));
}
