/**
 * The recipients of a website's e-mail reports through the API (./recipients.ts):
 * `…/websites/{id}/report-recipients`. A website's owner and admins list, add and delete them
 * (403 for a viewer: the list holds others' addresses); adding one e-mails its address the
 * link that confirms it (`…/{recipient_id}/confirmation` sends it again), and
 * `…/{recipient_id}/test` sends a confirmed one the report of the last complete period now.
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
import { websiteOf } from '../websites/http.ts';
import type { Sender } from './confirmation.ts';
import { intervalOf } from './period.ts';
import {
  addRecipient,
  sendRecipientConfirmation,
  sendTestReport,
  TESTS,
} from './recipient-mail.ts';
import {
  deleteRecipient,
  listRecipients,
  REPORT_INTERVALS,
  recipientInput,
  recipientOf,
  toRecipientRecord,
} from './recipients.ts';

const recipientSchema = s
  .object({
    id: s.number().int().openapi({ example: 12 }),
    email: s.string().openapi({ example: 'team@example.com' }),
    interval: s.enum(REPORT_INTERVALS).openapi({ example: 'weekly' }),
    confirmed_at: s.string().nullable().openapi({ example: '2026-11-29T09:12:00.000000Z' }),
    created_at: s.string().openapi({ example: '2026-11-29T09:00:00.000000Z' }),
  })
  .openapi('ReportRecipient');

const recipientInputSchema = s
  .object({
    email: s.string().openapi({ description: 'The recipient; it gets the confirmation e-mail.' }),
    interval: s
      .enum(REPORT_INTERVALS)
      .openapi({
        description:
          "`weekly` (each week, Monday to Sunday) or `monthly`; the server's `REPORT_INTERVAL` when not given.",
      })
      .optional(),
  })
  .openapi('ReportRecipientInput');
/** A recipient never changes (delete and add instead): both bodies are the new one's. */
const inputs = { all: recipientInputSchema, some: recipientInputSchema };
const recipients = websiteResource({
  tag: 'Reports',
  plural: 'report-recipients',
  item: { name: 'recipient_id', example: '12' },
  record: recipientSchema,
  inputs,
});
const plainError = (description: string) =>
  jsonContent(s.object({ message: s.string(), status: s.number().int() }), description);
const mailErrors = {
  503: plainError('E-mail is not set up, or the e-mail could not be sent (nothing is kept).'),
};
const confirmationErrors = {
  429: plainError('Too many confirmations: 10 a minute for a website, 3 a day to an address.'),
  ...mailErrors,
};
/** Only the owner and admins read the recipients (they hold others' addresses). */
const adminErrors = recipients.writes;
const accepted = (description: string, extra = {}) =>
  jsonContent(
    s.object({ sent: s.boolean(), ...extra, status: s.number().int().openapi({ example: 202 }) }),
    description,
  );

const routes = {
  list: recipients.route({
    method: 'get',
    path: recipients.collection,
    summary: "List a website's report recipients",
    description:
      "By address. The owner's own reports (`email` of the website) are not among them. The owner or an admin.",
    request: { params: idParam },
    responses: { 200: recipients.many('The recipients.'), ...adminErrors },
  }),
  create: recipients.route({
    method: 'post',
    path: recipients.collection,
    summary: 'Add a report recipient',
    description:
      "The website's e-mail report of each complete week or month, to `email`. The address gets a confirmation e-mail first (its link works until the recipient is deleted), and nothing else until it confirms. One recipient per address. Needs the EMAIL binding and MAIL_FROM (else a 503, and nothing is kept); at most 10 confirmations a minute for a website, and 3 a day to one address (429). The owner or an admin.",
    request: { params: idParam, body: recipients.body(false) },
    responses: {
      201: recipients.one('The new recipient, unconfirmed.', 201),
      ...adminErrors,
      ...recipients.invalid,
      ...confirmationErrors,
    },
  }),
  delete: recipients.route({
    method: 'delete',
    path: recipients.item,
    summary: 'Delete a report recipient',
    request: { params: recipients.itemParams },
    responses: {
      200: recipients.deleted('report_recipient', 'The recipient was deleted.'),
      ...adminErrors,
    },
  }),
  confirmation: recipients.route({
    method: 'post',
    path: `${recipients.item}/confirmation`,
    summary: 'Send the confirmation e-mail again',
    description: 'A 409 when the address has confirmed already; the limits of adding one apply.',
    request: { params: recipients.itemParams },
    responses: {
      202: accepted('The e-mail went out.'),
      ...adminErrors,
      409: plainError('The address has confirmed already.'),
      ...confirmationErrors,
    },
  }),
  test: recipients.route({
    method: 'post',
    path: `${recipients.item}/test`,
    summary: 'Send a test report now',
    description: `The report of the recipient's last complete period, now, marked as a test; the period's own report still goes out. Only to a confirmed address (409 before). At most ${TESTS.limit} tests an hour for a website (429 with Retry-After).`,
    request: { params: recipients.itemParams },
    responses: {
      202: accepted('The test went out.', {
        from: s.string().openapi({ example: '2026-11-23' }),
        to: s.string().openapi({ example: '2026-11-29' }),
      }),
      ...adminErrors,
      409: plainError('The address has not confirmed yet.'),
      429: plainError(`More than ${TESTS.limit} tests in an hour for the website.`),
      ...mailErrors,
    },
  }),
};

/** The key's person, and where this Sightline's links start. */
const senderOf = (c: Context<AppEnv>): Sender => ({
  personId: c.get('ownerId'),
  origin: linkOrigin(c.env.PUBLIC_URL, c.req.url),
});

export function registerReportRoutes(api: ApiApp) {
  /** The website of `{id}` (its owner's or an admin's) and its recipient `{recipient_id}`. */
  const recipientFor = async (c: Context<AppEnv>, id: number) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const recipientId = recipients.itemId(c);
    const row = recipientId === null ? undefined : await recipientOf(db, website.id, recipientId);
    if (!row) throw new ApiError(404, 'No report recipient with this id.');
    return { db, website, row };
  };

  serveRoute(api, routes.list, async (c, { id }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const rows = await listRecipients(db, website.id);
    return c.json({ data: rows.map(toRecipientRecord), status: 200 });
  });

  serveRoute(api, routes.create, async (c, { id, body }) => {
    const { db, website } = await websiteOf(c, id, 'admin');
    const input = recipientInput(body, intervalOf(c.env.REPORT_INTERVAL));
    const row = await addRecipient(c.env, db, website, input, senderOf(c));
    return c.json({ data: toRecipientRecord(row), status: 201 }, 201);
  });

  serveRoute(api, routes.delete, async (c, { id }) => {
    const { db, website, row } = await recipientFor(c, id);
    await deleteRecipient(db, website.id, row.id);
    return recipients.gone(c, row.id, 'report_recipient');
  });

  serveRoute(api, routes.confirmation, async (c, { id }) => {
    const { db, website, row } = await recipientFor(c, id);
    if (row.confirmedAt !== null) throw new ApiError(409, 'This address has confirmed already.');
    await sendRecipientConfirmation(c.env, db, website, row, senderOf(c));
    return c.json({ sent: true, status: 202 }, 202);
  });

  serveRoute(api, routes.test, async (c, { id }) => {
    const { db, website, row } = await recipientFor(c, id);
    const period = await sendTestReport(c.env, db, website, row, senderOf(c).origin);
    return c.json({ sent: true, from: period.from, to: period.to, status: 202 }, 202);
  });
}
