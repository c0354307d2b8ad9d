/**
 * `/websites`: the websites a person owns or is a member of — list, add, edit (the owner and
 * admins), delete (the owner, with a confirmation step), leave (a member) —
 * through the same service and validation as the API, with its messages shown next to the
 * fields, and the tracking snippet ready to copy.
 */
import { type Context, Hono } from 'hono';
import { createDb } from '../../db/client.ts';
import type { AppEnv } from '../../env.ts';
import { csrfToken, formBody, requireOwner, signedInOwner } from '../../http/session.ts';
import { ApiError } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import {
  deleteWebsite,
  type Role,
  type WebsiteAccess,
  websiteFor,
} from '../../websites/queries.ts';
import { changeWebsite } from '../../websites/service.ts';
import { render } from '../layout/layout.tsx';
import { registerAlertPages } from '../settings/alerts-section.tsx';
import { registerFunnelPages } from '../settings/funnels-section.tsx';
import { registerGoalPages } from '../settings/goals-section.tsx';
import { registerImportPages } from '../settings/imports-section.tsx';
import { registerMemberPages } from '../settings/members-section.tsx';
import { registerReportPages } from '../settings/reports-section.tsx';
import { registerSegmentPages } from '../settings/segments-section.tsx';
import { SETTINGS_PAGES } from '../settings/settings-pages.tsx';
import { registerSharingPages } from '../settings/sharing-section.tsx';
import { storageRecordOf } from '../settings/storage-section.tsx';
import { settingsPage } from './settings-page.tsx';
import { fieldsOf, formValues, valuesOf } from './website-form.tsx';
import { addWebsite, listPage, newPage } from './website-list.tsx';

/** `GET /websites/:id/received.json`: whether the website's log holds a hit yet. */
async function receivedAnswer(c: Context<AppEnv>) {
  const site = await siteOf(c);
  const storage = await storageRecordOf(c.env, site);
  return c.json({ received: storage.events > 0 });
}

/**
 * The website of the `:id` in the path when the signed-in person may do there what needs
 * `need`, with their role: one they have no role on is missing too; a role too low is a 403.
 */
async function accessOf(c: Context<AppEnv>, need: Role): Promise<WebsiteAccess> {
  const id = parseId(c.req.param('id'));
  try {
    if (id === null) throw new ApiError(404, '');
    return await websiteFor(createDb(c.env.DB), signedInOwner(c).id, id, need);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new ApiError(404, 'There is no such website.');
    throw err;
  }
}

/** The website of the settings page and its forms: the owner's and admins' (unless `need` says less). */
const siteOf = async (c: Context<AppEnv>, need: Role = 'admin') =>
  (await accessOf(c, need)).website;

/** `POST /websites/:id`: the changed settings, or the form again with the messages. */
async function saveWebsite(c: Context<AppEnv>) {
  const site = await siteOf(c);
  const body = await formBody(c);
  const fields = fieldsOf(body);
  try {
    await changeWebsite(createDb(c.env.DB), signedInOwner(c).id, site.id, fields);
    return c.redirect(`/websites/${site.id}?saved=1`, 303);
  } catch (err) {
    if (err instanceof ApiError && err.errors)
      return settingsPage(c, site, '', {
        general: { values: { ...valuesOf(site), ...formValues(fields) }, errors: err.errors },
      });
    throw err;
  }
}

/** `GET /websites/:id/delete`: the confirmation step. */
async function deletePage(c: Context<AppEnv>) {
  const { website: site } = await accessOf(c, 'owner');
  return render(c, {
    title: `Delete ${site.domain}`,
    children: (
      <>
        <h1>Delete {site.domain}?</h1>
        <p>The website and all of its statistics are deleted. This cannot be undone.</p>
        <form method="post" action={`/websites/${site.id}/delete`} class="actions">
          <input type="hidden" name="_csrf" value={await csrfToken(c)} />
          <button type="submit" class="danger">
            Delete {site.domain}
          </button>
          <a href="/websites">Cancel</a>
        </form>
      </>
    ),
  });
}

/** `POST /websites/:id/delete`: the website and everything recorded for it. */
async function removeWebsite(c: Context<AppEnv>) {
  const { website: site } = await accessOf(c, 'owner');
  await formBody(c);
  await deleteWebsite(createDb(c.env.DB), signedInOwner(c).id, site.id);
  return c.redirect('/websites?deleted=1', 303);
}

export function createWebsitePages() {
  const pages = new Hono<AppEnv>();
  pages.use('*', requireOwner());
  pages.get('/', listPage);
  pages.get('/new', (c) => newPage(c));
  pages.post('/', addWebsite);
  pages.get('/:id', async (c) => settingsPage(c, await siteOf(c), ''));
  for (const { path } of SETTINGS_PAGES)
    if (path) pages.get(`/:id/${path}`, async (c) => settingsPage(c, await siteOf(c), path));
  pages.post('/:id', saveWebsite);
  pages.get('/:id/received.json', receivedAnswer);
  pages.get('/:id/delete', deletePage);
  pages.post('/:id/delete', removeWebsite);
  registerGoalPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (values, errors) => settingsPage(c, site, 'goals', { goal: { values, errors } }),
  );
  registerFunnelPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (values, errors) =>
      settingsPage(c, site, 'funnels', { funnel: { values, errors } }),
  );
  registerReportPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (state, status) => settingsPage(c, site, 'alerts', { reports: { state, status } }),
  );
  registerSegmentPages(
    pages,
    accessOf,
    formBody,
    (c, site) => (state) => settingsPage(c, site, 'segments', { segment: state }),
  );
  registerImportPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (error, status) =>
      settingsPage(c, site, 'imports', { imports: { error, status } }),
  );
  registerSharingPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (state, status) =>
      settingsPage(c, site, 'sharing', { sharing: { state, status } }),
  );
  registerMemberPages(
    pages,
    accessOf,
    formBody,
    (c, site) => (state, status) =>
      settingsPage(c, site, 'members', { members: { state, status } }),
  );
  registerAlertPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (state, status) => settingsPage(c, site, 'alerts', { alerts: { state, status } }),
  );
  return pages;
}
