/**
 * The pages of a traffic alert's e-mails (src/alerts/): `/alerts/confirm#{id}.{token}` turns an
 * alert on for its address (the form is sent at once by the page's script), and
 * `/alerts/unsubscribe#{id}.{token}` deletes it after a click. The secret is after `#` and
 * travels in the form's body (docs/ARCHITECTURE.md, "Secrets out of addresses"); RFC 8058's
 * one-click address `/alerts/unsubscribe/{id}/{token}`, which mail providers post to as it is,
 * keeps it in its path. Reached from e-mails: the token is the credential, not a session or
 * an Origin header.
 */

import { type Context, Hono } from 'hono';
import { conditionOf } from '../../alerts/alert-mail.ts';
import { alertByToken, confirmAlert, deleteAlert } from '../../alerts/alerts.ts';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { ApiError } from '../../lib/errors.ts';
import { domainOfWebsite } from '../../websites/queries.ts';
import { CodeForm, FragmentForm, postedCode, smallForms } from '../layout/fragment-form.tsx';
import { render } from '../layout/layout.tsx';

const CODE = /^([1-9][0-9]{0,15})\.([0-9a-f]{32})$/;
const PATH = '/:id{[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}';

/** The id and token a form posted; a 404 for anything else. */
async function codeOf(c: Context<AppEnv>): Promise<[number, string]> {
  const m = CODE.exec(await postedCode(c));
  if (!m) throw new ApiError(404, 'This link is not valid: the alert may have been deleted.');
  return [Number(m[1]), m[2] ?? ''];
}

/** Deletes the alert `id` when `token` is its unsubscribe secret; the page that says so. */
async function unsubscribed(c: Context<AppEnv>, id: number, token: string) {
  const db = createDb(c.env.DB);
  const row = await alertByToken(db, 'unsubscribe', id, token);
  const domain = await domainOfWebsite(db, row.websiteId);
  await deleteAlert(db, row.websiteId, row.id);
  return render(c, {
    title: 'Unsubscribed',
    children: (
      <>
        <h1>Unsubscribed</h1>
        <p>
          No more {row.kind} alerts for {domain} will be sent to {row.email}.
        </p>
      </>
    ),
  });
}

const ACTIONS = { confirm: '/alerts/confirm', unsubscribe: '/alerts/unsubscribe' };

const unsubscribeForm = (code?: string) => (
  <>
    <h1>Stop this traffic alert?</h1>
    <CodeForm action={ACTIONS.unsubscribe} button="Stop this alert" code={code} />
  </>
);

export function createAlertPages() {
  const pages = new Hono<AppEnv>();
  pages.use('*', smallForms());

  pages.get('/confirm', (c) =>
    render(c, {
      title: 'Confirm traffic alerts',
      children: (
        <>
          <h1>Confirm traffic alerts</h1>
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
  pages.post('/confirm', async (c) => {
    const db = createDb(c.env.DB);
    const [id, token] = await codeOf(c);
    const row = await confirmAlert(db, await alertByToken(db, 'confirm', id, token));
    const domain = await domainOfWebsite(db, row.websiteId);
    return render(c, {
      title: 'Alerts confirmed',
      children: (
        <>
          <h1>Alerts confirmed</h1>
          <p>
            {row.email} will get an e-mail when {domain} has {conditionOf(row)}: at most one every{' '}
            {row.everyHours === 1 ? 'hour' : `${row.everyHours} hours`}. Each e-mail has a link to
            stop them.
          </p>
        </>
      ),
    });
  });

  pages.get('/unsubscribe', (c) =>
    render(c, { title: 'Unsubscribe', children: unsubscribeForm() }),
  );
  pages.post('/unsubscribe', async (c) => {
    const [id, token] = await codeOf(c);
    return unsubscribed(c, id, token);
  });
  pages.get(`/unsubscribe${PATH}`, async (c) => {
    const [id, token] = [Number(c.req.param('id')), c.req.param('token')];
    await alertByToken(createDb(c.env.DB), 'unsubscribe', id, token);
    return render(c, { title: 'Unsubscribe', children: unsubscribeForm(`${id}.${token}`) });
  });
  // RFC 8058: the mail provider's one-click post.
  pages.post(`/unsubscribe${PATH}`, (c) =>
    unsubscribed(c, Number(c.req.param('id')), c.req.param('token')),
  );
  return pages;
}
