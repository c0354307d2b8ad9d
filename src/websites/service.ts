/**
 * Creating and updating websites: field validation plus the rules that span fields or need
 * the database (domain uniqueness, the password that privacy 2 requires). Nothing is
 * written unless every field is valid.
 */
import { hashPassword } from '../accounts/password.ts';
import { type Database, isUniqueConflict } from '../db/client.ts';
import type { WebsiteRow } from '../db/schema.ts';
import { type FieldErrors, notFound, validationFailed } from '../lib/errors.ts';
import { parseFields } from '../lib/fields.ts';
import type { Schema } from '../lib/json-schema.ts';
import { isIpLiteral, LOCALHOST } from './domain.ts';
import { type WebsiteInput, websiteInputSchema } from './input.ts';
import type { PublicSuffixes } from './public-suffixes.ts';
import {
  domainClaimed,
  insertWebsite,
  type NewWebsite,
  updateWebsite,
  type WebsiteAccess,
  websiteFor,
} from './queries.ts';

const FIELD_ORDER = Object.keys(websiteInputSchema.shape);
const PASSWORD_REQUIRED = 'The password field is required when privacy is 2.';
const DOMAIN_TAKEN = 'The domain has already been taken.';
const PUBLIC_SUFFIX =
  "The domain is a public suffix (like co.uk or github.io); use the website's own domain.";
const LOCALHOST_DEPLOYED =
  'The domain localhost can be added only in development (npm run dev); use 127.0.0.1 or a real domain.';

/** Errors in the order the fields are documented, so `message` is always the first field's. */
function ordered(errors: FieldErrors): FieldErrors {
  const keys = Object.keys(errors).sort((a, b) => FIELD_ORDER.indexOf(a) - FIELD_ORDER.indexOf(b));
  return Object.fromEntries(keys.map((key) => [key, errors[key] ?? []]));
}

/** The columns a valid input sets (fields that were not sent are left out). */
async function columnsOf(data: WebsiteInput): Promise<Partial<NewWebsite>> {
  const columns: Partial<NewWebsite> = {};
  if (data.privacy !== undefined) columns.privacy = data.privacy;
  if (data.password) columns.passwordHash = await hashPassword(data.password);
  if (data.email !== undefined) columns.email = data.email;
  if (data.exclude_bots !== undefined) columns.excludeBots = data.exclude_bots;
  if (data.exclude_datacenters !== undefined) columns.excludeDatacenters = data.exclude_datacenters;
  if (data.exclude_params !== undefined) columns.excludeParams = data.exclude_params;
  if (data.exclude_ips !== undefined) columns.excludeIps = data.exclude_ips;
  if (data.timezone !== undefined) columns.timezone = data.timezone;
  return columns;
}

/**
 * Adds a website for `ownerId`. `local`: this Sightline runs in development (`npm run dev`
 * sets `DEVELOPMENT`), where `localhost` may be a website; a deployed one refuses it.
 */
export async function createWebsite(
  db: Database,
  ownerId: number,
  input: Record<string, unknown>,
  isPublicSuffix: PublicSuffixes,
  now = Date.now(),
  { local = false }: { local?: boolean } = {},
): Promise<WebsiteRow> {
  const parsed = parseFields(websiteInputSchema, input, ['domain']);
  const errors: FieldErrors = parsed.ok ? {} : { ...parsed.errors };
  const data = parsed.ok ? parsed.data : undefined;
  // Cross-field and database rules are checked on the fields that parsed, so that one
  // response names every problem.
  const privacy = readParsed(websiteInputSchema.shape.privacy, input.privacy);
  const password = readParsed(websiteInputSchema.shape.password, input.password);
  if (privacy === 2 && !password && !errors.password) errors.password = [PASSWORD_REQUIRED];
  const domain = readParsed(websiteInputSchema.shape.domain, input.domain);
  if (domain === LOCALHOST && !local) errors.domain = [LOCALHOST_DEPLOYED];
  else if (domain && !isIpLiteral(domain) && (await isPublicSuffix(domain)))
    errors.domain = [PUBLIC_SUFFIX];
  // One message whether the domain itself, a parent or a subdomain is taken: it tells no
  // more than the uniqueness check always did.
  if (domain && !errors.domain && (await domainClaimed(db, domain, ownerId)))
    errors.domain = [DOMAIN_TAKEN];
  if (!data || Object.keys(errors).length > 0 || !data.domain)
    throw validationFailed(ordered(errors));

  try {
    const row = await insertWebsite(db, {
      ownerId,
      domain: data.domain,
      ...(await columnsOf(data)),
      createdAt: now,
      updatedAt: now,
    });
    // Another owner created a related domain in the same instant, and was first.
    if (!row) throw validationFailed({ domain: [DOMAIN_TAKEN] });
    return row;
  } catch (err) {
    // Two requests raced for the same domain: the unique index decided.
    if (isUniqueConflict(err, 'websites.domain'))
      throw validationFailed({ domain: [DOMAIN_TAKEN] });
    throw err;
  }
}

/** Changes website `id` for `personId`, its owner or an admin member (else a 404 or a 403). */
export async function changeWebsite(
  db: Database,
  personId: number,
  id: number,
  input: Record<string, unknown>,
  now = Date.now(),
): Promise<WebsiteAccess> {
  const { website: current, role } = await websiteFor(db, personId, id, 'admin');
  const parsed = parseFields(websiteInputSchema, input);
  const errors: FieldErrors = parsed.ok ? {} : { ...parsed.errors };
  const domain = readParsed(websiteInputSchema.shape.domain, input.domain);
  // The domain identifies the site's data; it is shown on update but cannot change.
  if (domain !== undefined && domain !== current.domain && !errors.domain) {
    errors.domain = ['The domain of an existing website cannot be changed.'];
  }
  const privacy = readParsed(websiteInputSchema.shape.privacy, input.privacy) ?? current.privacy;
  const password = readParsed(websiteInputSchema.shape.password, input.password);
  if (
    privacy === 2 &&
    !password &&
    current.passwordHash === null &&
    !errors.password &&
    !errors.privacy
  ) {
    errors.password = [PASSWORD_REQUIRED];
  }
  if (!parsed.ok || Object.keys(errors).length > 0) throw validationFailed(ordered(errors));

  const updated = await updateWebsite(db, personId, id, {
    ...(await columnsOf(parsed.data)),
    updatedAt: now,
  });
  if (!updated) throw notFound();
  return { website: updated, role };
}

/** The parsed value of one field, or undefined when it is absent or invalid. */
function readParsed<T>(schema: Schema<T>, raw: unknown): T | undefined {
  if (raw === undefined || !schema.check) return undefined;
  const result = schema.check(raw);
  return result.ok ? result.value : undefined;
}
