/**
 * A website's e-mail reports on its "Alerts and reports" settings page
 * (`/websites/{id}/alerts`): who gets them — the owner, when the General page's box is on,
 * and each recipient with its interval, whether its address has confirmed, a button to send
 * the confirmation again or a test now, and one to delete it — and a form to add one, through
 * the same domain functions and messages as the API (src/reports/).
 */
import { eq } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { createDb } from '../../db/client.ts';
import { owners, type WebsiteRow } from '../../db/schema.ts';
import type { ReportRecipientRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { linkOrigin } from '../../http/origin.ts';
import { signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { type Interval, intervalOf } from '../../reports/period.ts';
import {
  addRecipient,
  sendRecipientConfirmation,
  sendTestReport,
} from '../../reports/recipient-mail.ts';
import {
  deleteRecipient,
  listRecipients,
  recipientInput,
  recipientOf,
} from '../../reports/recipients.ts';
import { FieldError, SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** The form's fields as sent, to show them again with the messages. */
type Values = Record<'email' | 'interval', string>;
/**
 * What a form sent back shows: the add form's values and messages by field, or (`recipient`)
 * why a button of a recipient's did nothing.
 */
export type ReportsState = { values?: Values; errors?: FieldErrors };
/** The statuses of a form sent back with its messages. */
export type ReportsStatus = 409 | 422 | 429 | 503;

const INTERVAL_NAME: Record<Interval, string> = { weekly: 'every week', monthly: 'every month' };

/** A form of one button that posts to `action` (with the session's form token). */
const ButtonForm: FC<{ action: string; csrf: string; label: string; what: string }> = (p) => (
  <form method="post" action={p.action} class="inline">
    <input type="hidden" name="_csrf" value={p.csrf} />
    <button type="submit" class="secondary">
      {p.label}
      <span class="sr-only"> {p.what}</span>
    </button>
  </form>
);

/** A recipient's status: confirmed, or waiting with a button that sends the link again. */
const Status: FC<{ site: WebsiteRow; r: ReportRecipientRow; csrf: string }> = ({
  site,
  r,
  csrf,
}) =>
  r.confirmedAt !== null ? (
    <>confirmed</>
  ) : (
    <>
      waiting for the address to confirm{' '}
      <ButtonForm
        action={`/websites/${site.id}/reports/${r.id}/confirmation`}
        csrf={csrf}
        label="Send again"
        what={`to ${r.email}`}
      />
    </>
  );

export const ReportsSection: FC<{
  site: WebsiteRow;
  recipients: ReportRecipientRow[];
  /** The owner's address: a row of its own while the website's reports box is on. */
  ownerEmail: string;
  /** The server's interval: the owner's, and a new recipient's unless chosen. */
  interval: Interval;
  csrf: string;
  state?: ReportsState | undefined;
}> = ({ site, recipients, ownerEmail, interval, csrf, state = {} }) => {
  const chosen = state.values?.interval || interval;
  const ownerRow = {
    cells: [ownerEmail, INTERVAL_NAME[interval], 'the owner (set under General)'],
  };
  return (
    <SettingsSection
      id="reports"
      title="E-mail reports"
      hint="A summary e-mail of each full week (Monday to Sunday) or month in the website's time zone: visitors, visits, page views and more with their change, and the top pages, sources, countries and goals. Each address gets a link to confirm it first, and every report has a link to stop them. A test e-mail brings the last full period's report right away."
      csrf={csrf}
      table={{
        head: ['E-mail', 'How often', 'Status'],
        rows: [
          ...(site.email === 1 ? [ownerRow] : []),
          ...recipients.map((r) => ({
            cells: [
              r.email,
              INTERVAL_NAME[r.interval as Interval],
              <Status site={site} r={r} csrf={csrf} />,
            ],
            ...(r.confirmedAt === null
              ? {}
              : {
                  actions: (
                    <ButtonForm
                      action={`/websites/${site.id}/reports/${r.id}/test`}
                      csrf={csrf}
                      label="Send a test"
                      what={`to ${r.email}`}
                    />
                  ),
                }),
            remove: {
              action: `/websites/${site.id}/reports/${r.id}/delete`,
              what: `the reports to ${r.email}`,
            },
          })),
        ],
      }}
      empty="No one gets the reports yet: turn them on for the owner under General, or add an address."
      add={{
        action: `/websites/${site.id}/reports`,
        button: 'Add the address',
        class: 'stack',
        fields: (
          <>
            <label>
              E-mail <input name="email" type="email" value={state.values?.email ?? ''} required />
            </label>
            <FieldError errors={state.errors} field="email" />
            <label>
              Send it{' '}
              <select name="interval">
                <option value="weekly" selected={chosen === 'weekly'}>
                  every week
                </option>
                <option value="monthly" selected={chosen === 'monthly'}>
                  every month
                </option>
              </select>
            </label>
            <FieldError errors={state.errors} field="interval" />
          </>
        ),
      }}
    >
      {state.errors?.recipient ? (
        <p class="error" role="alert">
          {state.errors.recipient[0]}
        </p>
      ) : null}
    </SettingsSection>
  );
};

/** The settings page again, with the section's state. */
type Rerender = (state: ReportsState, status: ReportsStatus) => Promise<Response>;

/** A refusal the section shows (with its status), or null for any other error. */
const shown = (err: unknown) =>
  err instanceof ApiError && [409, 422, 429, 503].includes(err.status)
    ? {
        errors: err.errors ?? { email: [err.message] },
        message: err.message,
        status: err.status as ReportsStatus,
      }
    : null;

/**
 * `POST /websites/:id/reports` (add, and e-mail the confirmation),
 * `…/reports/:recipient/confirmation` (send it again), `…/reports/:recipient/test` (a test
 * report now) and `…/reports/:recipient/delete`, the owner's and admins', each after the
 * form's CSRF check (`formBody`); each comes back to the page with `?report=added`
 * (`resent`, `tested`, `deleted`).
 */
export function registerReportPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  rerender: (c: Context<AppEnv>, site: WebsiteRow) => Rerender,
) {
  const senderOf = (c: Context<AppEnv>) => ({
    personId: signedInOwner(c).id,
    origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
  });
  const back = (site: WebsiteRow, done: string) =>
    settingsPath(site.id, 'alerts', `report=${done}`);
  const recipientIn = async (c: Context<AppEnv>, site: WebsiteRow) => {
    const id = parseId(c.req.param('recipient'));
    const row = id === null ? undefined : await recipientOf(createDb(c.env.DB), site.id, id);
    if (!row) throw new ApiError(404, 'There is no such report recipient.');
    return row;
  };
  /**
   * A form's route: its work, then back to the page with `done`; a refusal is shown on the
   * page — under the add form's fields for its own form, above the others' buttons else.
   */
  const handle =
    (done: string, work: (c: Context<AppEnv>, site: WebsiteRow, values: Values) => Promise<void>) =>
    async (c: Context<AppEnv>) => {
      const site = await siteOf(c);
      const body = await formBody(c);
      const values = { email: formText(body.email).trim(), interval: formText(body.interval) };
      try {
        await work(c, site, values);
      } catch (err) {
        const refused = shown(err);
        if (!refused) throw err;
        const state =
          done === 'added'
            ? { values, errors: refused.errors }
            : { errors: { recipient: [refused.message] } };
        return rerender(c, site)(state, refused.status);
      }
      return c.redirect(back(site, done), 303);
    };
  pages.post(
    '/:id/reports',
    handle('added', async (c, site, values) => {
      const input = recipientInput(values, intervalOf(c.env.REPORT_INTERVAL));
      await addRecipient(c.env, createDb(c.env.DB), site, input, senderOf(c));
    }),
  );
  pages.post(
    '/:id/reports/:recipient/confirmation',
    handle('resent', async (c, site) => {
      const row = await recipientIn(c, site);
      if (row.confirmedAt !== null) return;
      await sendRecipientConfirmation(c.env, createDb(c.env.DB), site, row, senderOf(c));
    }),
  );
  pages.post(
    '/:id/reports/:recipient/test',
    handle('tested', async (c, site) => {
      const row = await recipientIn(c, site);
      await sendTestReport(c.env, createDb(c.env.DB), site, row, senderOf(c).origin);
    }),
  );
  pages.post(
    '/:id/reports/:recipient/delete',
    handle('deleted', async (c, site) => {
      const row = await recipientIn(c, site);
      await deleteRecipient(createDb(c.env.DB), site.id, row.id);
    }),
  );
}

/** What the section shows besides the session's form token: spread into `ReportsSection`. */
export async function reportsOf(c: Context<AppEnv>, site: WebsiteRow) {
  const db = createDb(c.env.DB);
  const owner = await db
    .select({ email: owners.email })
    .from(owners)
    .where(eq(owners.id, site.ownerId))
    .get();
  return {
    recipients: await listRecipients(db, site.id),
    ownerEmail: owner?.email ?? '',
    interval: intervalOf(c.env.REPORT_INTERVAL),
  };
}
