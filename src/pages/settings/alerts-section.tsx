/**
 * A website's traffic alerts on its settings page (`/websites/{id}`): the list — each with what
 * it asks, whether its address has confirmed, a button to send the confirmation again and one
 * to delete it — and a form to add one, through the same domain functions and messages as the
 * API (src/alerts/).
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { addAlert, conditionOf, sendConfirmation } from '../../alerts/alert-mail.ts';
import {
  ALERT_BOUNDS,
  ALERT_DEFAULTS,
  alertInput,
  alertOf,
  deleteAlert,
  listAlerts,
} from '../../alerts/alerts.ts';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AlertRow } from '../../db/sharing-schema.ts';
import type { AppEnv } from '../../env.ts';
import { formText } from '../../http/form.ts';
import { linkOrigin } from '../../http/origin.ts';
import { signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import { Field } from '../layout/layout.tsx';
import { FieldError, SettingsSection } from './section.tsx';
import { settingsPath } from './settings-pages.tsx';

/** The alert form's fields as sent, to show them again with the messages. */
type AlertFormValues = Record<'kind' | 'email' | 'threshold' | 'hours' | 'every_hours', string>;
export type AlertsState = { values?: AlertFormValues; errors?: FieldErrors };

const EMPTY: AlertFormValues = {
  kind: 'spike',
  email: '',
  threshold: '',
  hours: '',
  every_hours: '',
};

/** An alert's status: confirmed, or a button that sends its confirmation again. */
const AlertStatus: FC<{ site: WebsiteRow; alert: AlertRow; csrf: string }> = ({
  site,
  alert: a,
  csrf,
}) =>
  a.confirmedAt !== null ? (
    <>confirmed</>
  ) : (
    <form method="post" action={`/websites/${site.id}/alerts/${a.id}/confirmation`} class="inline">
      <input type="hidden" name="_csrf" value={csrf} />
      waiting for the address to confirm{' '}
      <button type="submit" class="secondary">
        Send again<span class="sr-only"> to {a.email}</span>
      </button>
    </form>
  );

const NumberField: FC<{
  name: keyof typeof ALERT_BOUNDS;
  label: string;
  hint: string;
  value: string;
  error?: string | undefined;
}> = ({ name, label, hint, value, error }) => (
  <Field label={label} name={name} hint={hint} error={error ? [error] : undefined}>
    <input
      id={name}
      name={name}
      type="number"
      min={String(ALERT_BOUNDS[name].min)}
      max={String(ALERT_BOUNDS[name].max)}
      inputmode="numeric"
      value={value}
    />
  </Field>
);

export const AlertsSection: FC<{
  site: WebsiteRow;
  alerts: AlertRow[];
  csrf: string;
  state?: AlertsState | undefined;
}> = ({ site, alerts, csrf, state = {} }) => {
  const values = state.values ?? EMPTY;
  const error = (field: string) => state.errors?.[field]?.[0];
  return (
    <SettingsSection
      id="alerts"
      title="Traffic alerts"
      hint="Get an e-mail when traffic jumps (at least this many visitors in the last few hours: the e-mail names the pages and sources it comes from) or stops (fewer than this many, when the same hours last week had at least that many — often a sign the snippet broke). Checked every hour. Each address gets a link to confirm it first, and every e-mail has a link to stop the alert."
      csrf={csrf}
      table={{
        head: ['E-mail', 'When', 'At most', 'Status'],
        rows: alerts.map((a) => ({
          cells: [
            a.email,
            `${a.kind === 'spike' ? 'Spike' : 'Drop'}: ${conditionOf(a)}`,
            a.everyHours === 1 ? 'every hour' : `every ${a.everyHours} hours`,
            <AlertStatus site={site} alert={a} csrf={csrf} />,
          ],
          remove: {
            action: `/websites/${site.id}/alerts/${a.id}/delete`,
            what: `the ${a.kind} alert of ${a.email}`,
          },
        })),
      }}
      empty="No alerts yet."
      add={{
        action: `/websites/${site.id}/alerts`,
        button: 'Add the alert',
        class: 'stack',
        fields: (
          <>
            <label>
              E-mail <input name="email" type="email" value={values.email} required />
            </label>
            <FieldError errors={state.errors} field="email" />
            <label>
              Tell me when traffic{' '}
              <select name="kind">
                <option value="spike" selected={values.kind !== 'drop'}>
                  spikes
                </option>
                <option value="drop" selected={values.kind === 'drop'}>
                  drops
                </option>
              </select>
            </label>
            <NumberField
              name="threshold"
              label="Visitors"
              hint={`A spike: this many or more. A drop: fewer than this. Left empty: ${ALERT_DEFAULTS.drop.threshold} for a drop (none at all).`}
              value={values.threshold}
              error={error('threshold')}
            />
            <NumberField
              name="hours"
              label="Over the last … hours"
              hint={`Left empty: ${ALERT_DEFAULTS.spike.hours} for a spike, ${ALERT_DEFAULTS.drop.hours} for a drop.`}
              value={values.hours}
              error={error('hours')}
            />
            <NumberField
              name="every_hours"
              label="At most one e-mail every … hours"
              hint={`Left empty: ${ALERT_DEFAULTS.spike.every_hours} for a spike, ${ALERT_DEFAULTS.drop.every_hours} for a drop.`}
              value={values.every_hours}
              error={error('every_hours')}
            />
          </>
        ),
      }}
    />
  );
};

/** The settings page again, with the section's state. */
type Reshow = (state: AlertsState, status: 422 | 429 | 503) => Promise<Response>;

/**
 * `POST /websites/:id/alerts` (add, and e-mail the confirmation), `…/alerts/:alert/confirmation`
 * (send it again) and `…/alerts/:alert/delete`, the owner's and admins', each after the form's
 * CSRF check (`formBody`).
 */
export function registerAlertPages(
  pages: Hono<AppEnv>,
  siteOf: (c: Context<AppEnv>) => Promise<WebsiteRow>,
  formBody: (c: Context<AppEnv>) => Promise<Record<string, unknown>>,
  reshow: (c: Context<AppEnv>, site: WebsiteRow) => Reshow,
) {
  const senderOf = (c: Context<AppEnv>) => ({
    personId: signedInOwner(c).id,
    origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
  });
  const settings = (site: WebsiteRow, done: string) =>
    settingsPath(site.id, 'alerts', `alert=${done}`);
  /** A refusal the section shows (with its status), or the error itself. */
  const shown = (err: unknown) =>
    err instanceof ApiError && (err.status === 422 || err.status === 429 || err.status === 503)
      ? { errors: err.errors ?? { email: [err.message] }, status: err.status as 422 | 429 | 503 }
      : null;
  const alertIn = async (c: Context<AppEnv>, site: WebsiteRow) => {
    const id = parseId(c.req.param('alert'));
    const row = id === null ? undefined : await alertOf(createDb(c.env.DB), site.id, id);
    if (!row) throw new ApiError(404, 'There is no such alert.');
    return row;
  };
  pages.post('/:id/alerts', async (c) => {
    const site = await siteOf(c);
    const body = await formBody(c);
    const values = Object.fromEntries(
      Object.keys(EMPTY).map((k) => [k, formText(body[k]).trim()]),
    ) as AlertFormValues;
    const db = createDb(c.env.DB);
    try {
      await addAlert(c.env, db, site, alertInput(values), senderOf(c));
    } catch (err) {
      const refused = shown(err);
      if (!refused) throw err;
      return reshow(c, site)({ values, errors: refused.errors }, refused.status);
    }
    return c.redirect(settings(site, 'added'), 303);
  });
  pages.post('/:id/alerts/:alert/confirmation', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const row = await alertIn(c, site);
    const db = createDb(c.env.DB);
    if (row.confirmedAt === null) {
      try {
        await sendConfirmation(c.env, db, site, row, senderOf(c));
      } catch (err) {
        const refused = shown(err);
        if (!refused) throw err;
        return reshow(c, site)({ errors: refused.errors }, refused.status);
      }
    }
    return c.redirect(settings(site, 'resent'), 303);
  });
  pages.post('/:id/alerts/:alert/delete', async (c) => {
    const site = await siteOf(c);
    await formBody(c);
    const row = await alertIn(c, site);
    await deleteAlert(createDb(c.env.DB), site.id, row.id);
    return c.redirect(settings(site, 'deleted'), 303);
  });
}

/** The alerts the settings page lists. */
export const alertsOf = (c: Context<AppEnv>, site: WebsiteRow) =>
  listAlerts(createDb(c.env.DB), site.id);
