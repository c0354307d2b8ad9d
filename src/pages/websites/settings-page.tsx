/**
 * A website's settings page as shown (./websites.tsx serves them): the website's name and
 * links, what was just done, the settings' navigation (../settings/settings-pages.tsx) and the
 * page's sections with their data — or a form again with its messages.
 */
import type { Context } from 'hono';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { csrfToken, signedInOwner } from '../../http/session.ts';
import type { FieldErrors } from '../../lib/errors.ts';
import { FilteredSection, filteredTrafficPage } from '../filtered/filtered-section.tsx';
import { render } from '../layout/layout.tsx';
import { AlertsSection, type AlertsState, alertsOf } from '../settings/alerts-section.tsx';
import { type FunnelFormValues, FunnelsSection, funnelsOf } from '../settings/funnels-section.tsx';
import { type GoalFormValues, GoalsSection, goalsOf } from '../settings/goals-section.tsx';
import { ImportsSection, importsOf } from '../settings/imports-section.tsx';
import { MembersSection, type MembersState, membersOf } from '../settings/members-section.tsx';
import {
  ReportsSection,
  type ReportsState,
  type ReportsStatus,
  reportsOf,
} from '../settings/reports-section.tsx';
import {
  type SegmentFormState,
  SegmentsSection,
  segmentsOf,
} from '../settings/segments-section.tsx';
import { SettingsNav, type SettingsPage, settingsName } from '../settings/settings-pages.tsx';
import {
  SharedLinkMade,
  SharingSection,
  type SharingState,
  sharedLinksOf,
  siteSegmentsOf,
} from '../settings/sharing-section.tsx';
import { StorageSection, storageRecordOf } from '../settings/storage-section.tsx';
import { suggestionsOf } from '../settings/suggestions.tsx';
import { SnippetSection } from './snippet-section.tsx';
import { type FormValues, valuesOf, WebsiteForm } from './website-form.tsx';
import { websiteLinks } from './website-switcher.tsx';

/** Deleting the website: its owner's, on a page of its own that asks first. */
const DangerZone = ({ site, owner }: { site: WebsiteRow; owner: boolean }) => (
  <section aria-labelledby="danger" class="card danger-zone">
    <h2 id="danger">Danger zone</h2>
    {owner ? (
      <>
        <p>Deletes the website and all of its statistics; the next page asks you to confirm.</p>
        <p>
          <a href={`/websites/${site.id}/delete`} class="button danger">
            Delete {site.domain}…
          </a>
        </p>
      </>
    ) : (
      <p class="hint">Only the website's owner may delete it.</p>
    )}
  </section>
);

/** What a settings page says was just done, by the address's flag (`?goal=added`) and value. */
const NOTICES: Record<string, Record<string, string>> = {
  saved: { '1': 'Saved.' },
  goal: { added: 'Goal added.', deleted: 'Goal deleted.' },
  funnel: { added: 'Funnel added.', deleted: 'Funnel deleted.' },
  segment: { saved: 'Segment saved.', deleted: 'Segment deleted.' },
  import: { added: 'Import added.', deleted: 'Import deleted.' },
  link: { added: 'Link added.', deleted: 'Link deleted.' },
  alert: {
    added: 'Alert added: its address has been sent a link to confirm it.',
    resent: 'Confirmation sent again.',
    deleted: 'Alert deleted.',
  },
  member: { invited: 'Invitation sent.', changed: 'Role changed.', removed: 'Member removed.' },
  report: {
    added: 'Address added: it has been sent a link to confirm it.',
    resent: 'Confirmation sent again.',
    tested: 'Test report sent.',
    deleted: 'Address taken off the reports.',
  },
};

/** The notice of what the address says was just done, if it says so. */
function doneNotice(c: Context<AppEnv>): string | undefined {
  for (const [flag, texts] of Object.entries(NOTICES)) {
    const done = c.req.query(flag);
    if (done !== undefined) return texts[done] ?? 'Saved.';
  }
  return undefined;
}

/** What a settings page's form sent back with its messages (a 422, 409, 429 or 503). */
export type Forms = {
  general?: { values: FormValues; errors: FieldErrors };
  goal?: { values: GoalFormValues; errors: FieldErrors };
  funnel?: { values: FunnelFormValues; errors: FieldErrors };
  segment?: SegmentFormState;
  imports?: { error: string; status: 409 | 422 };
  sharing?: { state: SharingState; status: 200 | 422 };
  members?: { state: MembersState; status: 409 | 422 };
  alerts?: { state: AlertsState; status: 422 | 429 | 503 };
  reports?: { state: ReportsState; status: ReportsStatus };
};

/** What one settings page shows below the navigation: its sections, with their data. */
async function pageContent(
  c: Context<AppEnv>,
  site: WebsiteRow,
  page: SettingsPage,
  csrf: string,
  forms: Forms,
) {
  const { general, goal, funnel, imports, sharing, members, alerts } = forms;
  switch (page) {
    case '':
      return (
        <>
          <SnippetSection
            origin={new URL(c.req.url).origin}
            site={site}
            received={(await storageRecordOf(c.env, site)).events > 0}
          />
          <h2 id="general">General and tracking</h2>
          <WebsiteForm
            action={`/websites/${site.id}`}
            csrf={csrf}
            values={general?.values ?? valuesOf(site)}
            errors={general?.errors}
            hasPassword={site.passwordHash !== null}
            editing
          />
        </>
      );
    case 'goals': {
      const [goals, suggestions] = await Promise.all([goalsOf(c, site), suggestionsOf(c, site)]);
      return (
        <GoalsSection site={site} goals={goals} csrf={csrf} suggestions={suggestions} {...goal} />
      );
    }
    case 'funnels': {
      const [funnels, suggestions] = await Promise.all([
        funnelsOf(c, site),
        suggestionsOf(c, site),
      ]);
      return (
        <FunnelsSection
          site={site}
          funnels={funnels}
          csrf={csrf}
          suggestions={suggestions}
          {...funnel}
        />
      );
    }
    case 'segments': {
      const data = await segmentsOf(c, site);
      return <SegmentsSection site={site} data={data} csrf={csrf} state={forms.segment} />;
    }
    case 'alerts': {
      const [list, reports] = [await alertsOf(c, site), await reportsOf(c, site)];
      return (
        <>
          <AlertsSection site={site} alerts={list} csrf={csrf} state={alerts?.state} />
          <ReportsSection site={site} {...reports} csrf={csrf} state={forms.reports?.state} />
        </>
      );
    }
    case 'sharing': {
      const [links, segments] = [await sharedLinksOf(c, site), await siteSegmentsOf(c, site)];
      return (
        <SharingSection
          site={site}
          links={links}
          segments={segments}
          csrf={csrf}
          state={sharing?.state}
        />
      );
    }
    case 'members': {
      const list = await membersOf(c, site);
      return <MembersSection site={site} members={list} csrf={csrf} state={members?.state} />;
    }
    case 'imports': {
      const list = await importsOf(c, site);
      return <ImportsSection site={site} imports={list} csrf={csrf} error={imports?.error} />;
    }
    case 'filtered':
      return <FilteredSection site={site} traffic={await filteredTrafficPage(c.env, site)} />;
    case 'storage':
      return <StorageSection storage={await storageRecordOf(c.env, site)} />;
    case 'danger':
      return <DangerZone site={site} owner={site.ownerId === signedInOwner(c).id} />;
  }
}

/** A settings page: the website's name and links, the settings' navigation, the page. */
export async function settingsPage(
  c: Context<AppEnv>,
  site: WebsiteRow,
  page: SettingsPage,
  forms: Forms = {},
) {
  const { general, goal, funnel, segment, imports, sharing, members, alerts, reports } = forms;
  const csrf = await csrfToken(c);
  const content = await pageContent(c, site, page, csrf, forms);
  const notice = doneNotice(c);
  return render(
    c,
    {
      title: `${settingsName(page)} · ${site.domain}`,
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
          {notice ? (
            <p class="notice" role="status">
              {notice}
            </p>
          ) : null}
          {sharing?.state.created ? <SharedLinkMade created={sharing.state.created} /> : null}
          {imports ? (
            <p class="error" role="alert">
              The import failed: {imports.error}
            </p>
          ) : null}
          <div class="settings">
            <SettingsNav site={site} page={page} />
            <div class="settings-page">{content}</div>
          </div>
        </>
      ),
    },
    imports?.status ??
      sharing?.status ??
      members?.status ??
      alerts?.status ??
      reports?.status ??
      (general || goal || funnel || segment ? 422 : 200),
  );
}
