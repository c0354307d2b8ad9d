/**
 * The list of a person's websites (`GET /websites`) and adding one (`GET /websites/new`,
 * `POST /websites`).
 */
import type { Context } from 'hono';
import { createDb } from '../../db/client.ts';
import type { WebsiteRow } from '../../db/schema.ts';
import type { AppEnv } from '../../env.ts';
import { csrfToken, formBody, signedInOwner } from '../../http/session.ts';
import { ApiError, type FieldErrors } from '../../lib/errors.ts';
import { logError } from '../../lib/log.ts';
import { formatNumber } from '../../query/present/readable.ts';
import { type Recent, recentTraffic } from '../../query/present/recent.ts';
import { assetSuffixes } from '../../websites/public-suffixes.ts';
import { listWebsites, mayActAs, type Role } from '../../websites/queries.ts';
import { createWebsite } from '../../websites/service.ts';
import { DeleteButton, render } from '../layout/layout.tsx';
import { type FormValues, fieldsOf, formValues, PRIVACY, WebsiteForm } from './website-form.tsx';

/** Websites whose last 24 hours the list shows (each is a read of its event log). */
const WITH_RECENT = 50;

/** A trend line of 24 hourly counts, 96 × 24 px, drawn to the busiest hour. */
function Trend({ hourly }: { hourly: number[] }) {
  const top = Math.max(1, ...hourly);
  const points = hourly
    .map(
      (n, i) =>
        `${((i * 96) / (hourly.length - 1)).toFixed(1)},${(22 - (n / top) * 20).toFixed(1)}`,
    )
    .join(' ');
  return (
    <svg class="trend" viewBox="0 0 96 24" width="96" height="24" aria-hidden="true">
      <polyline points={points} />
    </svg>
  );
}

/** A website's visitors of the last 24 hours with their trend, opening today's statistics. */
function RecentCell({ domain, last }: { domain: string; last: Recent | null | undefined }) {
  if (!last) return <>—</>;
  return (
    <a href={`/stats/${domain}?range=today`} class="recent">
      {formatNumber(last.visitors)} <Trend hourly={last.hourly} />
    </a>
  );
}

/** The last 24 hours of the first websites, in the list's order; null where the log did not answer. */
async function recentOf(
  c: Context<AppEnv>,
  rows: WebsiteRow[],
): Promise<Map<number, Recent | null>> {
  const db = createDb(c.env.DB);
  const read = await Promise.all(
    rows.slice(0, WITH_RECENT).map(async (site) => {
      try {
        return [site.id, await recentTraffic(c.env, db, site)] as const;
      } catch (err) {
        logError('recent traffic not read', { websiteId: site.id }, err);
        return [site.id, null] as const;
      }
    }),
  );
  return new Map(read);
}

function WebsiteTable({
  rows,
  csrf,
  recent,
}: {
  rows: (WebsiteRow & { role: Role | null })[];
  csrf: string;
  recent: Map<number, Recent | null>;
}) {
  return (
    <table class="websites">
      <caption class="sr-only">Your websites</caption>
      <thead>
        <tr>
          <th scope="col">Domain</th>
          <th scope="col" class="num">
            Visitors, last 24 hours
          </th>
          <th scope="col">Statistics page</th>
          <th scope="col">Time zone</th>
          <th scope="col">Your role</th>
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ role, ...site }) => (
          <tr>
            <td>
              <a href={`/stats/${site.domain}`}>{site.domain}</a>
            </td>
            <td class="num" data-label="Last 24 hours">
              <RecentCell domain={site.domain} last={recent.get(site.id)} />
            </td>
            <td data-label="Statistics page">{PRIVACY[site.privacy] ?? ''}</td>
            <td data-label="Time zone">{site.timezone}</td>
            <td data-label="Your role">{role}</td>
            <td class="actions">
              <a href={`/stats/${site.domain}`}>Statistics</a>
              <a href={`/websites/${site.id}/export?format=plausible`}>Export</a>
              {role && mayActAs(role, 'admin') ? (
                <a href={`/websites/${site.id}`}>Settings</a>
              ) : null}
              {role === 'owner' ? (
                <a href={`/websites/${site.id}/delete`}>Delete</a>
              ) : (
                <DeleteButton
                  action={`/websites/${site.id}/leave`}
                  csrf={csrf}
                  label="Leave"
                  what={site.domain}
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `GET /websites`: the person's websites (owned, and those they are a member of), by domain. */
export async function listPage(c: Context<AppEnv>) {
  const { rows } = await listWebsites(createDb(c.env.DB), signedInOwner(c).id, {
    sortBy: 'domain',
    sort: 'asc',
    limit: 1000,
    offset: 0,
  });
  // A flag, never text from the URL: a link must not be able to put words on this page.
  const deleted = c.req.query('deleted') === '1';
  const left = c.req.query('left') === '1';
  const joined = rows.find((site) => String(site.id) === c.req.query('joined'));
  return render(c, {
    title: 'Websites',
    children: (
      <>
        <div class="actions">
          <h1>Websites</h1>
          <a class="button" href="/websites/new">
            Add a website
          </a>
        </div>
        {deleted ? (
          <p class="notice" role="status">
            The website was deleted, with everything recorded for it.
          </p>
        ) : null}
        {left ? (
          <p class="notice" role="status">
            You left the website.
          </p>
        ) : null}
        {joined ? (
          <p class="notice" role="status">
            You joined {joined.domain} as {joined.role}.
          </p>
        ) : null}
        {rows.length === 0 ? (
          <p>No websites yet. Add one to get its tracking snippet.</p>
        ) : (
          <WebsiteTable rows={rows} csrf={await csrfToken(c)} recent={await recentOf(c, rows)} />
        )}
      </>
    ),
  });
}

export async function newPage(c: Context<AppEnv>, values: FormValues = {}, errors?: FieldErrors) {
  return render(
    c,
    {
      title: 'Add a website',
      children: (
        <>
          <h1>Add a website</h1>
          <WebsiteForm
            action="/websites"
            csrf={await csrfToken(c)}
            values={values}
            errors={errors}
          />
        </>
      ),
    },
    errors ? 422 : 200,
  );
}

/** `POST /websites`: a new website, or the form again with the messages by its fields. */
export async function addWebsite(c: Context<AppEnv>) {
  const body = await formBody(c);
  const fields = fieldsOf(body);
  try {
    const site = await createWebsite(
      createDb(c.env.DB),
      signedInOwner(c).id,
      fields,
      assetSuffixes(c.env.ASSETS),
      Date.now(),
      { local: c.env.DEVELOPMENT === 'on' },
    );
    return c.redirect(`/websites/${site.id}?created=1`, 303);
  } catch (err) {
    if (err instanceof ApiError && err.errors) return newPage(c, formValues(fields), err.errors);
    throw err;
  }
}
