/**
 * The fields of a website, as a create or an update gives them: each validated and
 * normalised here (the domain, the statistics page's privacy and password, the exclusion
 * lists, the time zone). The service validates with this schema, and the API documents its
 * request bodies with it.
 */
import { field, intChoice } from '../lib/fields.ts';
import { type Infer, s } from '../lib/json-schema.ts';
import { canonicalTimeZone } from '../lib/time/timezone.ts';
import { normalizeDomain } from './domain.ts';
import { validateIpList } from './lists/ip-list.ts';
import { validateParamList } from './lists/params-list.ts';

const LIST_MAX = 10_000;
const SITE_PASSWORD_MIN = 8;
const SITE_PASSWORD_MAX = 128;

const domainField = field<string>(
  {
    type: 'string',
    description:
      'The website\'s domain. Normalised: lower-cased; scheme, "www.", port, path and trailing dot removed. Must be unique.',
    example: 'example.com',
  },
  (raw) => {
    if (typeof raw !== 'string')
      return { ok: false, message: 'The domain field must be a string.' };
    const result = normalizeDomain(raw);
    if (!result.ok) return { ok: false, message: `The domain ${result.reason}.` };
    return { ok: true, value: result.domain };
  },
);

const passwordField = field<string | null>(
  {
    type: 'string',
    maxLength: SITE_PASSWORD_MAX,
    description:
      'Password of the statistics page (8 to 128 characters), required when privacy becomes 2 and none is set. Stored hashed.',
  },
  (raw) => {
    if (raw === null || raw === '') return { ok: true, value: null };
    if (typeof raw !== 'string')
      return { ok: false, message: 'The password field must be a string.' };
    // Counted in characters (code points), as owners' passwords are.
    if ([...raw].length < SITE_PASSWORD_MIN) {
      return {
        ok: false,
        message: `The password field must be at least ${SITE_PASSWORD_MIN} characters.`,
      };
    }
    if (raw.length > SITE_PASSWORD_MAX) {
      return {
        ok: false,
        message: `The password field must not be greater than ${SITE_PASSWORD_MAX} characters.`,
      };
    }
    return { ok: true, value: raw };
  },
);

function listField(name: 'exclude_ips' | 'exclude_params', description: string) {
  const what = name === 'exclude_ips' ? 'IP address or range' : 'parameter name';
  return field<string>({ type: 'string', maxLength: LIST_MAX, description }, (raw) => {
    if (raw === null) return { ok: true, value: '' };
    if (typeof raw !== 'string')
      return { ok: false, message: `The ${name.replace('_', ' ')} field must be a string.` };
    if (raw.length > LIST_MAX) {
      return {
        ok: false,
        message: `The ${name.replace('_', ' ')} field must not be greater than ${LIST_MAX} characters.`,
      };
    }
    const result = name === 'exclude_ips' ? validateIpList(raw) : validateParamList(raw);
    if (result.ok) return { ok: true, value: result.text };
    const shown = result.entry.length > 64 ? `${result.entry.slice(0, 64)}…` : result.entry;
    return {
      ok: false,
      message: `The ${name.replace('_', ' ')} field has an invalid ${what} on line ${result.line}: ${shown}`,
    };
  });
}

const timezoneField = field<string>(
  {
    type: 'string',
    description: 'IANA time zone in which dates and hours are counted.',
    example: 'Europe/Berlin',
  },
  (raw) => {
    const zone = typeof raw === 'string' ? canonicalTimeZone(raw.trim()) : null;
    return zone
      ? { ok: true, value: zone }
      : {
          ok: false,
          message: 'The timezone field must be a valid IANA time zone name (e.g. Europe/Berlin).',
        };
  },
);

/** Fields of a create or update request. On create `domain` is required. */
export const websiteInputSchema = s
  .object({
    domain: domainField.optional(),
    privacy: intChoice(
      'privacy',
      [0, 1, 2],
      'Statistics page privacy: 0 public, 1 private (default), 2 password.',
    ).optional(),
    password: passwordField.optional(),
    email: intChoice('email', [0, 1], 'Periodic e-mail reports: 0 off (default), 1 on.').optional(),
    exclude_bots: intChoice(
      'exclude_bots',
      [0, 1],
      'Exclude common bots: 0 no, 1 yes (default).',
    ).optional(),
    exclude_datacenters: intChoice(
      'exclude_datacenters',
      [0, 1],
      'Exclude hits from hosting and cloud networks (data centres): 0 no, 1 yes (default).',
    ).optional(),
    exclude_params: listField(
      'exclude_params',
      'Query parameters to remove from recorded pages, one per line; a line "*" removes all.',
    ).optional(),
    exclude_ips: listField(
      'exclude_ips',
      'IP addresses or CIDR ranges (IPv4 or IPv6) not to track, one per line; lines starting with # are comments.',
    ).optional(),
    timezone: timezoneField.optional(),
  })
  .openapi('WebsiteInput');

export type WebsiteInput = Infer<typeof websiteInputSchema>;
