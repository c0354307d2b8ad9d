import { type Context, Hono } from 'hono';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { timingSafeEqual } from '../../lib/crypto.ts';
import { ApiError } from '../../lib/errors.ts';
import type { Interval } from '../../reports/period.ts';
import { intervalText } from '../../reports/recipient-mail.ts';
import {
  confirmRecipient,
  notValid,
  recipientByToken,
  unsubscribeRecipient,
} from '../../reports/recipients.ts';
import { unsubscribe, unsubscribeToken } from '../../reports/send.ts';
import { domainOfWebsite } from '../../websites/queries.ts';
import { CodeForm, FragmentForm, postedCode, smallForms } from '../layout/fragment-form.tsx';
import { render } from '../layout/layout.tsx';

const invalid = () =>
  new ApiError(404, "This link is not valid. Turn reports off in the website's settings instead.");

/** Where the forms post: the secret travels in their bodies. */
const ACTIONS = { unsubscribe: '/reports/unsubscribe', confirm: '/reports/confirm' };

/** A link's code: the owner's `{website id}.{token}`, a recipient's `r{id}.{token}`. */
const CODE = /^(r?)([1-9][0-9]{0,15})\.([0-9a-f]{32})$/;
const PATH = '/:code{r?[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}';

type Code = { recipient: boolean; id: number; token: string };

/** The code a form posted, or the one-click path's; a 404 for anything else. */
async function codeOf(c: Context<AppEnv>, posted: boolean): Promise<Code> {
  const m = CODE.exec(
    posted ? await postedCode(c) : `${c.req.param('code')}.${c.req.param('token')}`,
  );
  if (!m) throw invalid();
  return { recipient: m[1] === 'r', id: Number(m[2]), token: m[3] ?? '' };
}

/** Stops the reports `code` names when its token is theirs; the page that says so. */
async function done(c: Context<AppEnv>, code: Code) {
  const db = createDb(c.env.DB);
  let said = 'No more e-mail reports will be sent for this website.';
  if (code.recipient) {
    const row = await unsubscribeRecipient(db, code.id, code.token);
    said = `No more reports of ${await domainOfWebsite(db, row.websiteId)} will be sent to ${row.email}.`;
  } else if (!(await unsubscribe(db, code.id, code.token))) throw invalid();
  return render(c, {
    title: 'Unsubscribed',
    children: (
      <>
        <h1>Unsubscribed</h1>
        <p>{said}</p>
      </>
    ),
  });
}

/** The one-click address opened in a browser: the form, when the token is the code's. */
async function opened(c: Context<AppEnv>, code: Code) {
  const db = createDb(c.env.DB);
  if (code.recipient) await recipientByToken(db, 'unsubscribe', code.id, code.token);
  else if (!timingSafeEqual(code.token, await unsubscribeToken(db, code.id))) throw invalid();
  const value = `${code.recipient ? 'r' : ''}${code.id}.${code.token}`;
  return render(c, { title: 'Unsubscribe', children: unsubscribeForm(value) });
}

const unsubscribeForm = (code?: string) => (
  <>
    <h1>Stop e-mail reports?</h1>
    <CodeForm action={ACTIONS.unsubscribe} button="Stop these reports" code={code} />
  </>
);

/** Confirms the recipient a posted code names; the page that says what it will get. */
async function confirmed(c: Context<AppEnv>) {
  const code = await codeOf(c, true);
  if (code.recipient) throw notValid();
  const db = createDb(c.env.DB);
  const row = await confirmRecipient(
    db,
    await recipientByToken(db, 'confirm', code.id, code.token),
  );
  const what = intervalText(row.interval as Interval, await domainOfWebsite(db, row.websiteId));
  return render(c, {
    title: 'Reports confirmed',
    children: (
      <>
        <h1>Reports confirmed</h1>
        <p>
          {row.email} will get {what}. The first one, of the last full period, arrives within the
          hour; every e-mail has a link to stop them.
        </p>
      </>
    ),
  });
}

export function createReportLinkPages() {
  const pages = new Hono<AppEnv>();
  pages.use('*', smallForms());
  pages.get('/unsubscribe', (c) =>
    render(c, { title: 'Unsubscribe', children: unsubscribeForm() }),
  );
  pages.post('/unsubscribe', async (c) => done(c, await codeOf(c, true)));
  pages.get(`/unsubscribe${PATH}`, async (c) => opened(c, await codeOf(c, false)));
  // RFC 8058: the mail provider's one-click post.
  pages.post(`/unsubscribe${PATH}`, async (c) => done(c, await codeOf(c, false)));
  pages.get('/confirm', (c) =>
    render(c, {
      title: 'Confirm e-mail reports',
      children: (
        <>
          <h1>Confirm e-mail reports</h1>
          <FragmentForm
            action={ACTIONS.confirm}
            label="The code of the link (after # in its address)"
            button="Confirm"
            auto
          />
        </>
      ),
    }),
  );
  pages.post('/confirm', confirmed);
  return pages;
}
