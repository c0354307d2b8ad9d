/**
 * No secret in the dev log (docs/SECURITY.md): `wrangler dev`, as `npm run dev` runs it,
 * prints each request's method and path. Opening a shared link, accepting an invitation and
 * unsubscribing from reports — each the way Sightline hands out its link, the token after
 * `#` — leave no token in that output; a shared link of the old form (`/share/{token}`)
 * leaves its token in one line: the request that trades it for a cookie.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, withDatabase } from '../../scripts/lib/d1.ts';
import { suffixesOnDisk } from '../../scripts/lib/public-suffixes.ts';
import { createOwner } from '../../src/accounts/owners.ts';
import { unsubscribeToken } from '../../src/reports/send.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { until } from '../support/until.ts';
import { mailsTo } from './mail.ts';

const INVITEE = `log-invitee-${Date.now()}@example.com`;

let state: string;
let child: ChildProcess | undefined;
let output = '';
let base: string;
let key: string;
let site: { id: number };
let unsubscribe: string;

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A request as a browser sends it: from this site (`Origin`), with `cookie`, no redirects. */
const send = (path: string, init: { form?: Record<string, string>; cookie?: string } = {}) =>
  fetch(`${base}${path}`, {
    method: init.form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      origin: base,
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });

const api = (path: string, body: unknown) =>
  fetch(`${base}/api/v1/websites/${site.id}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Waits until the output shows `line` (wrangler prints a request's line after answering it). */
async function logged(line: RegExp): Promise<void> {
  await until(`${line} in the output`, () => line.test(output));
}

/** The invitation e-mail to `to`, as the local `send_email` binding writes it (once it has). */
async function invitationMail(to: string): Promise<string> {
  const [raw = ''] = await until(`an e-mail to ${to}`, async () => {
    const mails = await mailsTo(to, new Set());
    return mails.length > 0 && mails;
  });
  return raw.replace(/=\r?\n/g, '');
}

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sightline-logs-'));
  ({ key, site, unsubscribe } = await withDatabase(
    { remote: false, persistTo: state },
    async (db) => {
      const owner = await createOwner(db, { email: 'logs-owner@example.com', password: 'a pw!' });
      const made = await createWebsite(
        db,
        owner.id,
        { domain: 'logs.example.com', privacy: 1, email: 1 },
        suffixesOnDisk,
      );
      return { key: owner.apiKey, site: made, unsubscribe: await unsubscribeToken(db, made.id) };
    },
  ));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    `${root}node_modules/.bin/wrangler`,
    ['dev', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', state],
    {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    },
  );
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d) => (output += d));
  // Started once it answers, however long that takes; a wrangler that exits never will.
  const started = child;
  await until('wrangler dev to answer', async () => {
    if (started.exitCode !== null) throw new Error(`wrangler dev exited:\n${output}`);
    return fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${output}`);
  });
});

afterAll(async () => {
  // Its state is removed once wrangler has exited (not while it still writes there).
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await exited;
  }
  if (state) await rm(state, { recursive: true, force: true });
});

describe('the dev log of wrangler dev', () => {
  it('never holds the token of a link opened, an invitation accepted, an unsubscribe', async () => {
    // A shared link: the page at its address posts the token after `#`; a cookie reads on.
    const link = (await (await api('/shared-links', { name: 'Logs' })).json()) as {
      data: { id: number; url: string };
    };
    const token = link.data.url.split('#')[1] ?? '';
    expect((await send('/share')).status).toBe(200);
    const traded = await send('/share', { form: { code: token } });
    expect(traded.status).toBe(303);
    const cookie = (traded.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await send(`/share/${link.data.id}?range=today`, { cookie })).status).toBe(200);
    expect((await send(`/share/${link.data.id}/page?range=today`, { cookie })).status).toBe(200);

    // An invitation: its page, then the new login's password.
    expect((await api('/members', { email: INVITEE, role: 'viewer' })).status).toBe(201);
    const invitation = /\/invitations#([A-Za-z0-9_-]{43})/.exec(await invitationMail(INVITEE));
    const code = invitation?.[1] ?? '';
    expect((await send('/invitations', { form: { code } })).status).toBe(200);
    const joined = await send('/invitations', {
      form: { code, accept: '1', password: 'a colleague password' },
    });
    expect(joined.status).toBe(303);

    // Unsubscribing through the report's own link.
    const done = await send('/reports/unsubscribe', {
      form: { code: `${site.id}.${unsubscribe}` },
    });
    expect(done.status).toBe(200);

    await logged(/POST \/reports\/unsubscribe 200/);
    expect(output).toMatch(/POST \/share 303/);
    expect(output).toMatch(/POST \/invitations 303/);
    for (const secret of [token, code, unsubscribe]) expect(output).not.toContain(secret);
  });

  it('holds the token of a link of the old form once: the request that trades it', async () => {
    const link = (await (await api('/shared-links', { name: 'Old' })).json()) as {
      data: { id: number; url: string };
    };
    const token = link.data.url.split('#')[1] ?? '';
    const traded = await send(`/share/${token}?range=today`);
    expect(traded.headers.get('location')).toBe(`/share/${link.data.id}?range=today`);
    const cookie = (traded.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await send(traded.headers.get('location') ?? '', { cookie })).status).toBe(200);
    await logged(new RegExp(`GET /share/${link.data.id} 200`));
    expect(output.split(token)).toHaveLength(2);
  });
});
