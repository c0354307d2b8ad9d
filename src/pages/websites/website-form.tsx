/**
 * The form of a website's settings, on the add and the edit page: its fields, filled from a
 * website or from what was sent, and what a sent form means in the API's fields.
 */

import type { WebsiteRow } from '../../db/schema.ts';
import type { FieldErrors } from '../../lib/errors.ts';
import { timeZoneNames } from '../../lib/time/timezone.ts';
import { listEntries } from '../../websites/lists/line-list.ts';
import { Field } from '../layout/layout.tsx';

export const PRIVACY = ['Public', 'Private (you and the members)', 'Password-protected'] as const;

export type FormValues = Partial<
  Record<
    | 'domain'
    | 'privacy'
    | 'email'
    | 'exclude_bots'
    | 'exclude_datacenters'
    | 'exclude_params'
    | 'exclude_ips'
    | 'timezone',
    string
  >
>;

export function valuesOf(site: WebsiteRow): FormValues {
  return {
    domain: site.domain,
    privacy: String(site.privacy),
    email: String(site.email),
    exclude_bots: String(site.excludeBots),
    exclude_datacenters: String(site.excludeDatacenters),
    exclude_params: site.excludeParams,
    exclude_ips: site.excludeIps,
    timezone: site.timezone,
  };
}

/** An exclusion list: one entry a line. */
function ListField(props: {
  label: string;
  name: 'exclude_params' | 'exclude_ips';
  hint: string;
  value: string | undefined;
  errors: FieldErrors | undefined;
}) {
  return (
    <Field
      label={props.label}
      name={props.name}
      hint={props.hint}
      error={props.errors?.[props.name]}
    >
      <textarea id={props.name} name={props.name}>
        {props.value ?? ''}
      </textarea>
    </Field>
  );
}

/** Who may read the statistics page, and its password. */
function StatisticsPageFields(props: {
  values: FormValues;
  errors: FieldErrors | undefined;
  hasPassword: boolean | undefined;
}) {
  const { values, errors } = props;
  return (
    <>
      <Field label="Statistics page" name="privacy" error={errors?.privacy}>
        <select id="privacy" name="privacy">
          {PRIVACY.map((label, i) => (
            <option value={String(i)} selected={(values.privacy ?? '1') === String(i)}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Password of the statistics page"
        name="password"
        shownIf="privacy=2"
        hint={
          props.hasPassword
            ? 'A password is set; leave empty to keep it.'
            : 'Needed for a password-protected page; 8 to 128 characters.'
        }
        error={errors?.password}
      >
        <input id="password" name="password" type="password" autocomplete="new-password" />
      </Field>
    </>
  );
}

export function WebsiteForm(props: {
  action: string;
  csrf: string;
  values: FormValues;
  errors?: FieldErrors;
  hasPassword?: boolean;
  editing?: boolean;
}) {
  const { values, errors } = props;
  return (
    <form method="post" action={props.action} class="stack card" novalidate>
      <input type="hidden" name="_csrf" value={props.csrf} />
      <Field
        label="Domain"
        name="domain"
        hint={props.editing ? 'The domain cannot be changed.' : 'For example example.com'}
        error={errors?.domain}
      >
        <input
          id="domain"
          name="domain"
          required
          value={values.domain ?? ''}
          readonly={props.editing}
          aria-invalid={errors?.domain ? 'true' : undefined}
        />
      </Field>
      <StatisticsPageFields values={values} errors={errors} hasPassword={props.hasPassword} />
      <Field
        label="Time zone"
        name="timezone"
        hint="Days and hours are counted in it. Your browser's is filled in; type a city or region to choose another (for example Europe/Berlin)."
        error={errors?.timezone}
      >
        <input
          id="timezone"
          name="timezone"
          list="timezones"
          autocomplete="off"
          value={values.timezone ?? 'UTC'}
          // A new website's: the browser's own, when the page's script can tell it.
          data-browser-zone={props.editing || values.timezone !== undefined ? undefined : '1'}
        />
        <datalist id="timezones">
          {timeZoneNames().map((zone) => (
            <option value={zone} />
          ))}
        </datalist>
      </Field>
      <label class="check">
        <input
          type="checkbox"
          name="exclude_bots"
          value="1"
          checked={(values.exclude_bots ?? '1') === '1'}
        />{' '}
        Exclude bots
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="exclude_datacenters"
          value="1"
          checked={(values.exclude_datacenters ?? '1') === '1'}
        />{' '}
        Exclude hits from data centres (hosting and cloud networks, where servers run, not people's
        browsers)
      </label>
      <label class="check">
        <input type="checkbox" name="email" value="1" checked={values.email === '1'} /> E-mail the
        owner a report every week or month (more addresses: Alerts and reports)
      </label>
      <label class="check">
        <input type="checkbox" name="path_only" value="1" checked={pathOnly(values)} /> Count the
        path only: leave out everything after ? in page addresses (campaign tags are always read as
        sources and campaigns, never kept in pages)
      </label>
      <ListField
        label="Excluded query parameters"
        name="exclude_params"
        hint="Query parameters to leave out of page addresses, one per line (not needed when only the path is counted)."
        value={pathOnly(values) ? '' : values.exclude_params}
        errors={errors}
      />
      <ListField
        label="Excluded IP addresses"
        name="exclude_ips"
        hint="One address or CIDR range per line; lines starting with # are comments."
        value={values.exclude_ips}
        errors={errors}
      />
      <div class="actions">
        <button type="submit">{props.editing ? 'Save' : 'Add website'}</button>
        <a href="/websites">Cancel</a>
      </div>
    </form>
  );
}

/** Whether the website counts the path only (`exclude_params` holds `*`). */
const pathOnly = (values: FormValues) => listEntries(values.exclude_params ?? '').includes('*');

/** Form fields → API fields (unchecked boxes are absent from a form post). */
export function fieldsOf(body: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of [
    'domain',
    'privacy',
    'password',
    'exclude_params',
    'exclude_ips',
    'timezone',
  ]) {
    if (typeof body[key] === 'string') fields[key] = body[key];
  }
  // "Count the path only" is `exclude_params` `*`; unticked, the list as typed.
  if (body.path_only === '1') fields.exclude_params = '*';
  fields.email = body.email === '1' ? '1' : '0';
  fields.exclude_bots = body.exclude_bots === '1' ? '1' : '0';
  fields.exclude_datacenters = body.exclude_datacenters === '1' ? '1' : '0';
  return fields;
}

/** What the form shows again after a refusal: the fields as sent, never the password. */
export function formValues(fields: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const [k, v] of Object.entries(fields))
    if (typeof v === 'string' && k !== 'password') out[k as keyof FormValues] = v;
  return out;
}
