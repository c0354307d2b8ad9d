/**
 * `/websites`: the websites a person owns or is a member of — list, add, edit (the owner and
 * admins), delete (the owner, with a confirmation step), leave (a member) —
 * through the same service and validation as the API, with its messages shown next to the
 * fields, and the tracking snippet ready to copy.
 */
import { type Context, Hono } from 'hono';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { csrfToken, formBody, requireOwner, signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { parseId } from '../../lib/ids.ts';
import {
  deleteWebsite,
  type Role,
  type WebsiteAccess,
  websiteFor,
} from '../../websites/queries.ts';
import { changeWebsite } from '../../websites/service.ts';
import { render } from '../layout/layout.tsx';
import {
  AlertsSection,
  type AlertsState,
  alertsOf,
  registerAlertPages,
} from '../settings/alerts-section.tsx';
import {
  type FunnelFormValues,
  FunnelsSection,
  funnelsOf,
  registerFunnelPages,
} from '../settings/funnels-section.tsx';
import {
  type GoalFormValues,
  GoalsSection,
  goalsOf,
  registerGoalPages,
} from '../settings/goals-section.tsx';
import { ImportsSection, importsOf, registerImportPages } from '../settings/imports-section.tsx';
import {
  MembersSection,
  type MembersState,
  membersOf,
  registerMemberPages,
} from '../settings/members-section.tsx';
import {
  registerSharingPages,
  SharedLinkMade,
  SharingSection,
  type SharingState,
  sharedLinksOf,
  siteSegmentsOf,
} from '../settings/sharing-section.tsx';
import { StorageSection, storageRecordOf } from '../settings/storage-section.tsx';
import { SnippetSection } from './snippet-section.tsx';
import { type FormValues, fieldsOf, formValues, valuesOf, WebsiteForm } from './website-form.tsx';
import { addWebsite, listPage, newPage } from './website-list.tsx';
import { websiteLinks } from './website-switcher.tsx';

/** `GET /websites/:id/received.json`: whether the website's log holds a hit yet. */
async function receivedAnswer(c: Context<AppEnv>) {
  const site = await siteOf(c);
  const storage = await storageRecordOf(c.env, site);
  return c.json({ received: storage.events > 0 });
}

/** The settings page's sections, in order, as its navigation names them. */
const SECTIONS = [
  ['snippet-title', 'Snippet'],
  ['general', 'General and tracking'],
  ['goals', 'Goals'],
  ['funnels', 'Funnels'],
  ['imports', 'Imports and exports'],
  ['sharing', 'Sharing'],
  ['members', 'Members'],
  ['alerts', 'Traffic alerts'],
  ['storage', 'Storage'],
  ['danger', 'Danger zone'],
] as const;

const SectionNav = ({ site }: { site: WebsiteRow }) => (
  <nav class="sections" aria-label="Settings sections">
    <a href={`/stats/${site.domain}`}>Statistics →</a>
    {SECTIONS.map(([id, name]) => (
      <a href={`#${id}`}>{name}</a>
    ))}
  </nav>
);

/** Deleting the website: its owner's, on a page of its own that asks first. */
const DangerZone = ({ site, owner }: { site: WebsiteRow; owner: boolean }) => (
  <section aria-labelledby="danger" class="card danger-zone">
    <h2 id="danger">Danger zone</h2>
    {owner ? (
      <p>
        <a href={`/websites/${site.id}/delete`} class="button danger">
          Delete {site.domain}…
        </a>{' '}
        The website and all of its statistics; the next page asks first.
      </p>
    ) : (
      <p class="hint">Only the website's owner may delete it.</p>
    )}
  </section>
);

/** What the settings page says was done: a goal or a funnel added or deleted, or saved. */
function savedNotice(c: Context<AppEnv>): string {
  for (const [flag, noun] of [
    ['goal', 'Goal'],
    ['funnel', 'Funnel'],
    ['import', 'Import'],
    ['link', 'Link'],
  ] as const) {
    const done = c.req.query(flag);
    if (done === 'added' || done === 'deleted') return `${noun} ${done}.`;
  }
  if (c.req.query('alert') === 'resent') return 'Confirmation sent again.';
  if (c.req.query('alert') === 'added')
    return 'Alert added: its address has been sent a link to confirm it.';
  const member = c.req.query('member');
  if (member === 'invited') return 'Invitation sent.';
  if (member === 'changed') return 'Role changed.';
  if (member === 'removed') return 'Member removed.';
  return 'Saved.';
}

async function editPage(
  c: Context<AppEnv>,
  site: WebsiteRow,
  values: FormValues,
  errors?: FieldErrors,
  forms: {
    goal?: { values: GoalFormValues; errors: FieldErrors };
    funnel?: { values: FunnelFormValues; errors: FieldErrors };
    imports?: { error: string; status: 409 | 422 };
    sharing?: { state: SharingState; status: 200 | 422 };
    members?: { state: MembersState; status: 409 | 422 };
    alerts?: { state: AlertsState; status: 422 | 429 | 503 };
  } = {},
) {
  const { goal, funnel, imports, sharing, members, alerts } = forms;
  const csrf = await csrfToken(c);
  const storage = await storageRecordOf(c.env, site);
  return render(
    c,
    {
      title: site.domain,
      children: (
        <>
          <div class="actions">
            <h1>{site.domain}</h1>
            {
              await websiteLinks(
                createDb(c.env.DB),
                { id: signedInOwner(c).id, admin: true },
                site,
                'settings',
              )
            }
          </div>
          {c.req.query('created') ? (
            <p class="notice" role="status">
              Website added. Paste the snippet below into every page of your site.
            </p>
          ) : null}
          {c.req.query('saved') ||
          c.req.query('goal') ||
          c.req.query('funnel') ||
          c.req.query('import') ||
          c.req.query('link') ||
          c.req.query('alert') ||
          c.req.query('member') ? (
            <p class="notice" role="status">
              {savedNotice(c)}
            </p>
          ) : null}
          {sharing?.state.created ? <SharedLinkMade created={sharing.state.created} /> : null}
          {imports ? (
            <p class="error" role="alert">
              The import failed: {imports.error} (the form is under{' '}
              <a href="#imports">Imports and exports</a>).
            </p>
          ) : null}
          <SectionNav site={site} />
          <SnippetSection
            origin={new URL(c.req.url).origin}
            site={site}
            received={storage.events > 0}
          />
          <h2 id="general">General and tracking</h2>
          <WebsiteForm
            action={`/websites/${site.id}`}
            csrf={csrf}
            values={values}
            errors={errors}
            hasPassword={site.passwordHash !== null}
            editing
          />
          <GoalsSection
            site={site}
            goals={await goalsOf(c, site)}
            csrf={csrf}
            values={goal?.values}
            errors={goal?.errors}
          />
          <FunnelsSection
            site={site}
            funnels={await funnelsOf(c, site)}
            csrf={csrf}
            values={funnel?.values}
            errors={funnel?.errors}
          />
          <ImportsSection
            site={site}
            imports={await importsOf(c, site)}
            csrf={csrf}
            error={imports?.error}
          />
          <SharingSection
            site={site}
            links={await sharedLinksOf(c, site)}
            segments={await siteSegmentsOf(c, site)}
            csrf={csrf}
            state={sharing?.state}
          />
          <MembersSection
            site={site}
            members={await membersOf(c, site)}
            csrf={csrf}
            state={members?.state}
          />
          <AlertsSection
            site={site}
            alerts={await alertsOf(c, site)}
            csrf={csrf}
            state={alerts?.state}
          />
          <StorageSection storage={storage} />
          <DangerZone site={site} owner={site.ownerId === signedInOwner(c).id} />
        </>
      ),
    },
    imports?.status ??
      sharing?.status ??
      members?.status ??
      alerts?.status ??
      (errors || goal || funnel ? 422 : 200),
  );
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
      return editPage(c, site, { ...valuesOf(site), ...formValues(fields) }, err.errors);
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
  pages.get('/:id', async (c) => {
    const site = await siteOf(c);
    return editPage(c, site, valuesOf(site));
  });
  pages.post('/:id', saveWebsite);
  pages.get('/:id/received.json', receivedAnswer);
  pages.get('/:id/delete', deletePage);
  pages.post('/:id/delete', removeWebsite);
  registerGoalPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (values, errors) =>
      editPage(c, site, valuesOf(site), undefined, { goal: { values, errors } }),
  );
  registerFunnelPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (values, errors) =>
      editPage(c, site, valuesOf(site), undefined, { funnel: { values, errors } }),
  );
  registerImportPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (error, status) =>
      editPage(c, site, valuesOf(site), undefined, { imports: { error, status } }),
  );
  registerSharingPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (state, status) =>
      editPage(c, site, valuesOf(site), undefined, { sharing: { state, status } }),
  );
  registerMemberPages(
    pages,
    accessOf,
    formBody,
    (c, site) => (state, status) =>
      editPage(c, site, valuesOf(site), undefined, { members: { state, status } }),
  );
  registerAlertPages(
    pages,
    siteOf,
    formBody,
    (c, site) => (state, status) =>
      editPage(c, site, valuesOf(site), undefined, { alerts: { state, status } }),
  );
  return pages;
}
