/**
 * A website's tracking snippet on its settings page, ready to copy, and whether the website
 * has received its first hit yet.
 */
import type { WebsiteRow } from '../../db/schema.ts';
import { TRACKER_VERSION } from '../../tracker/script.generated.ts';

/** The snippet for a website, pointing at this Sightline. */
function snippet(origin: string): string {
  return `<script async src="${origin}/js/script.js?v=${TRACKER_VERSION}"></script>`;
}

/**
 * The snippet, ready to copy, and whether the website has received a hit: until it has, a
 * line that says it waits, which the dashboard's script asks again every 5 seconds
 * (`data-received`, `/websites/{id}/received.json`) and turns into "received" (a reload does
 * without a script).
 */
export function SnippetSection({
  origin,
  site,
  received,
}: {
  origin: string;
  site: WebsiteRow;
  received: boolean;
}) {
  const stats = `/stats/${site.domain}`;
  return (
    <section class="card" aria-labelledby="snippet-title">
      <h2 id="snippet-title">Tracking snippet</h2>
      <p>Add it to the &lt;head&gt; of every page. It sets no cookies and weighs under 1 KB.</p>
      <pre id="snippet">{snippet(origin)}</pre>
      <button type="button" class="secondary" data-copy="snippet">
        Copy snippet
      </button>
      {received ? (
        <p class="received">
          Receiving page views. <a href={stats}>See the statistics</a>
        </p>
      ) : (
        <p class="waiting" role="status" data-received={`/websites/${site.id}/received.json`}>
          Waiting for the first page view: open your site with the snippet in place (to try without
          a site, send one with curl as the README's "Your first website" shows).{' '}
          <a href={stats} hidden>
            See the statistics
          </a>
        </p>
      )}
    </section>
  );
}
