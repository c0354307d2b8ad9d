/**
 * Unsubscribing from e-mail reports. The link carries an HMAC of the website id, so it needs
 * no session. The e-mail's own link is `/reports/unsubscribe#{id}.{token}`: the secret after
 * `#` is never sent, and the page's form posts it (docs/ARCHITECTURE.md, "Secrets out of
 * addresses"). RFC 8058's one-click address, `/reports/unsubscribe/{id}/{token}`, is what mail
 * providers post to as it is, so it keeps the secret in its path; opened in a browser (also an
 * older e-mail's link), it shows the same form. Mail clients post without an Origin header, so
 * these routes are outside the pages' Origin check (the token is the credential).
 */
import { type Context, Hono } from 'hono';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { timingSafeEqual } from '../../lib/crypto.ts';
import { ApiError } from '../../lib/errors.ts';
import { unsubscribe, unsubscribeToken } from '../../reports/send.ts';
import { CodeForm, postedCode, smallForms } from '../layout/fragment-form.tsx';
import { render } from '../layout/layout.tsx';

const invalid = () =>
  new ApiError(404, "This link is not valid. Turn reports off in the website's settings instead.");

/** Where the form posts: the secret travels in its body. */
const ACTION = '/reports/unsubscribe';

/** Turns the reports of `id` off when `token` is its secret; the page that says so. */
async function done(c: Context<AppEnv>, id: number, token: string) {
  if (!(await unsubscribe(createDb(c.env.DB), id, token))) throw invalid();
  return render(c, {
    title: 'Unsubscribed',
    children: (
      <>
        <h1>Unsubscribed</h1>
        <p>No more e-mail reports will be sent for this website.</p>
      </>
    ),
  });
}

export function createUnsubscribePages() {
  const pages = new Hono<AppEnv>();
  pages.use('*', smallForms());
  const confirm = (code?: string) => (
    <>
      <h1>Stop e-mail reports?</h1>
      <CodeForm action={ACTION} button="Stop the reports for this website" code={code} />
    </>
  );

  pages.get('/', (c) => render(c, { title: 'Unsubscribe', children: confirm() }));
  pages.post('/', async (c) => {
    const m = /^([1-9][0-9]{0,15})\.([0-9a-f]{32})$/.exec(await postedCode(c));
    if (!m) throw invalid();
    return done(c, Number(m[1]), m[2] ?? '');
  });
  pages.get('/:id{[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}', async (c) => {
    const [id, token] = [Number(c.req.param('id')), c.req.param('token')];
    if (!timingSafeEqual(token, await unsubscribeToken(createDb(c.env.DB), id))) throw invalid();
    return render(c, { title: 'Unsubscribe', children: confirm(`${id}.${token}`) });
  });
  // RFC 8058: the mail provider's one-click post.
  pages.post('/:id{[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}', (c) =>
    done(c, Number(c.req.param('id')), c.req.param('token')),
  );
  return pages;
}
