/**
 * Traffic alerts through the API (./alerts.ts): `…/websites/{id}/alerts`. A website's owner and
 * admins list, add, change and delete them (403 for a viewer: the list holds others'
 * addresses); adding one e-mails its address the link that confirms it, and
 * `…/alerts/{alert_id}/confirmation` sends that e-mail again.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { ApiApp } from '../http/openapi.ts';
import { linkOrigin } from '../http/origin.ts';
import { websiteResource } from '../http/resource.ts';
import { jsonContent } from '../http/responses.ts';
import { idParam, serveRoute } from '../http/route.ts';
import { ApiError } from '../lib/errors.ts';
import { s } from '../lib/json-schema.ts';
import type { Sender } from '../reports/confirmation.ts';
import { websiteOf } from '../websites/http.ts';
import { addAlert, sendConfirmation } from './alert-mail.ts';
import {
  ALERT_BOUNDS,
  ALERT_DEFAULTS,
  ALERT_KINDS,
  alertInput,
  alertOf,
  deleteAlert,
  listAlerts,
  toAlertRecord,
  updateAlert,
} from './alerts.ts';

const bounds = (field: keyof typeof ALERT_BOUNDS) =>
  `${ALERT_BOUNDS[field].min}–${ALERT_BOUNDS[field].max.toLocaleString('en-US')}`;

const alertSchema = s
  .object({
    id: s.number().int().openapi({ example: 3 }),
    kind: s.enum(ALERT_KINDS).openapi({ example: 'spike' }),
    email: s.string().openapi({ example: 'ops@example.com' }),
    threshold: s.number().int().openapi({ example: 100 }),
    hours: s.number().int().openapi({ example: 1 }),
    every_hours: s.number().int().openapi({ example: 12 }),
    confirmed_at: s.string().nullable().openapi({ example: '2026-11-29 09:12:00' }),
    created_at: s.string().openapi({ example: '2026-11-29 09:00:00' }),
  })
  .openapi('Alert');

const numbers = {
  threshold: s
    .number()
    .int()
    .openapi({
      description: `Visitors (${bounds('threshold')}): a spike alert fires at this many or more over \`hours\`; a drop alert under this many, when the same hours a week before had this many or more. Needed for a spike; a drop's default is ${ALERT_DEFAULTS.drop.threshold} (no visitors at all).`,
    }),
  hours: s
    .number()
    .int()
    .openapi({
      description: `The window, whole hours before the check's hour (${bounds('hours')}; default ${ALERT_DEFAULTS.spike.hours} for a spike, ${ALERT_DEFAULTS.drop.hours} for a drop).`,
    }),
  every_hours: s
    .number()
    .int()
    .openapi({
      description: `At most one e-mail of this alert this often, in hours (${bounds('every_hours')}; default ${ALERT_DEFAULTS.spike.every_hours} for a spike, ${ALERT_DEFAULTS.drop.every_hours} for a drop).`,
    }),
};
const inputs = {
  all: s
    .object({
      kind: s.enum(ALERT_KINDS),
      email: s.string().openapi({ description: 'The recipient; it gets the confirmation e-mail.' }),
      threshold: numbers.threshold.optional(),
      hours: numbers.hours.optional(),
      every_hours: numbers.every_hours.optional(),
    })
    .openapi('AlertInput'),
  some: s
    .object({
      threshold: numbers.threshold.optional(),
      hours: numbers.hours.optional(),
      every_hours: numbers.every_hours.optional(),
    })
    .openapi('AlertChange'),
};
const alerts = websiteResource({
  tag: 'Alerts',
  plural: 'alerts',
  item: { name: 'alert_id', example: '3' },
  record: alertSchema,
  inputs,
});
const plainError = (description: string) =>
  jsonContent(s.object({ message: s.string(), status: s.number().int() }), description);
const mailErrors = {
  429: plainError('Too many confirmations: 10 a minute for a website, 3 a day to an address.'),
  503: plainError('E-mail is not set up, or the e-mail could not be sent (nothing is kept).'),
};
/** Only the owner and admins read the alerts (they hold others' addresses). */
const adminErrors = alerts.writes;

const routes = {
  list: alerts.route({
    method: 'get',
    path: alerts.collection,
    summary: "List a website's traffic alerts",
    description: 'By kind, then address. The owner or an admin.',
    request: { params: idParam },
    responses: { 200: alerts.many('The alerts.'), ...adminErrors },
  }),
  create: alerts.route({
    method: 'post',
    path: alerts.collection,
    summary: 'Add a traffic alert',
    description:
      'An e-mail to `email` when traffic spikes or drops, checked every hour. The address gets a confirmation e-mail first (its link works until the alert is deleted), and nothing else until it confirms. One alert of each kind per address. Needs the EMAIL binding and MAIL_FROM (else a 503, and nothing is kept); at most 10 confirmations a minute for a website, and 3 a day to one address (429). The owner or an admin.',
    request: { params: idParam, body: alerts.body(false) },
    responses: {
      201: alerts.one('The new alert, unconfirmed.', 201),
      ...adminErrors,
      ...alerts.invalid,
      ...mailErrors,
    },
  }),
  get: alerts.route({
    method: 'get',
    path: alerts.item,
    summary: 'Get a traffic alert',
    request: { params: alerts.itemParams },
    responses: { 200: alerts.one('The alert.'), ...adminErrors },
  }),
  update: alerts.route({
    method: 'patch',
    path: alerts.item,
    summary: "Change a traffic alert's numbers",
    description: 'Its kind and address stay (422 naming them): delete it and add another.',
    request: { params: alerts.itemParams, body: alerts.body(true) },
    responses: { 200: alerts.one('The alert, changed.'), ...adminErrors, ...alerts.invalid },
  }),
  delete: alerts.route({
    method: 'delete',
    path: alerts.item,
    summary: 'Delete a traffic alert',
    request: { params: alerts.itemParams },
    responses: { 200: alerts.deleted('alert', 'The alert was deleted.'), ...adminErrors },
  }),
  confirmation: alerts.route({
    method: 'post',
    path: `${alerts.item}/confirmation`,
    summary: 'Send the confirmation e-mail again',
    description: 'A 409 when the address has confirmed already; the limits of adding one apply.',
    request: { params: alerts.itemParams },
    responses: {
      202: jsonContent(
        s.object({ sent: s.boolean(), status: s.number().int().openapi({ example: 202 }) }),
        'The e-mail went out.',
      ),
      ...adminErrors,
      409: plainError('The address has confirmed already.'),
      ...mailErrors,
    },
  }),
};

/** The key's person, and where this Sightline's links start. */
const senderOf = (c: Context<AppEnv>): Sender => ({
  personId: c.get('ownerId'),
  origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
});

const noSuchAlert = () => new ApiError(404, 'No alert with this id.');

export function registerAlertRoutes(api: ApiApp) {
  /** The website of `{id}` (its owner's or an admin's) and its alert `{alert_id}`. */
  const alertFor = async (c: Context<AppEnv>, id: number) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const alertId = alerts.itemId(c);
    const row = alertId === null ? undefined : await alertOf(db, website.id, alertId);
    if (!row) throw noSuchAlert();
    return { db, website, row };
  };

  serveRoute(api, routes.list, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const rows = await listAlerts(db, website.id);
    return c.json({ data: rows.map(toAlertRecord), status: 200 });
  });

  serveRoute(api, routes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const row = await addAlert(c.env, db, website, alertInput(body), senderOf(c));
    return c.json({ data: toAlertRecord(row), status: 201 }, 201);
  });

  serveRoute(api, routes.get, async (c, { id }) => {
    const { row } = await alertFor(c, id);
    return c.json({ data: toAlertRecord(row), status: 200 });
  });

  serveRoute(api, routes.update, async (c, { id, body }) => {
    const { db, website, row } = await alertFor(c, id);
    const changed = await updateAlert(db, website.id, row.id, alertInput(body, true));
    if (!changed) throw noSuchAlert();
    return c.json({ data: toAlertRecord(changed), status: 200 });
  });

  serveRoute(api, routes.delete, async (c, { id }) => {
    const { db, website, row } = await alertFor(c, id);
    if (!(await deleteAlert(db, website.id, row.id))) throw noSuchAlert();
    return alerts.gone(c, row.id, 'alert');
  });

  serveRoute(api, routes.confirmation, async (c, { id }) => {
    const { db, website, row } = await alertFor(c, id);
    if (row.confirmedAt !== null) throw new ApiError(409, 'This address has confirmed already.');
    await sendConfirmation(c.env, db, website, row, senderOf(c));
    return c.json({ sent: true, status: 202 }, 202);
  });
}
