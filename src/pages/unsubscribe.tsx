/**
 * One-click unsubscribe from e-mail reports (RFC 8058). The link carries an HMAC of the
 * website id, so it needs no session; mail clients POST to it without an Origin header, so
 * these routes are outside the pages' Origin check (the token is the credential).
 */
import { Hono } from 'hono';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { timingSafeEqual } from '../lib/crypto.ts';
import { ApiError } from '../lib/errors.ts';
import { unsubscribe, unsubscribeToken } from '../reports/send.ts';
import { render } from './layout.tsx';

export function createUnsubscribePages() {
  const pages = new Hono<AppEnv>();
  const invalid = () =>
    new ApiError(
      404,
      "This link is not valid. Turn reports off in the website's settings instead.",
    );

  pages.get('/:id{[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}', async (c) => {
    const id = Number(c.req.param('id'));
    const token = c.req.param('token');
    if (!timingSafeEqual(token, await unsubscribeToken(createDb(c.env.DB), id))) throw invalid();
    return render(c, {
      title: 'Unsubscribe',
      children: (
        <>
          <h1>Stop e-mail reports?</h1>
          <form method="post" class="actions">
            <button type="submit">Stop the reports for this website</button>
          </form>
        </>
      ),
    });
  });

  pages.post('/:id{[1-9][0-9]{0,15}}/:token{[0-9a-f]{32}}', async (c) => {
    const done = await unsubscribe(
      createDb(c.env.DB),
      Number(c.req.param('id')),
      c.req.param('token'),
    );
    if (!done) throw invalid();
    return render(c, {
      title: 'Unsubscribed',
      children: (
        <>
          <h1>Unsubscribed</h1>
          <p>No more e-mail reports will be sent for this website.</p>
        </>
      ),
    });
  });
  return pages;
}
