/**
 * The demo owner and website, with 90 days of sample traffic through the real pipeline, and
 * goals, a funnel, a segment and custom properties to look at.
 */
import { createOwner } from '../../src/accounts/owners.ts';
import type { Database } from '../../src/db/client.ts';
import { createFunnel } from '../../src/flows/funnels.ts';
import { createGoal, goalInput } from '../../src/goals/goals.ts';
import { createSegment, segmentInput } from '../../src/segments/segments.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { engagementSends } from './engagement-mix.ts';
import { suffixesOnDisk } from './public-suffixes.ts';
import { type GeneratedHit, generateTraffic, replayTraffic, rng } from './traffic.ts';

export const DEMO = {
  email: 'demo@sightline.local',
  password: 'sightline-demo',
  domain: 'demo.example.com',
};

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Creates the demo owner and its public website; the traffic comes after (`replayDemoTraffic`). */
export async function createDemo(db: Database) {
  const owner = await createOwner(db, { email: DEMO.email, password: DEMO.password });
  const website = await createWebsite(
    db,
    owner.id,
    { domain: DEMO.domain, privacy: 0 },
    suffixesOnDisk,
  );
  for (const fields of [
    { event: 'signup', display_name: 'Sign-ups' },
    { event: 'purchase', display_name: 'Purchases', currency: 'USD' },
    { page: '/pricing', display_name: 'Saw pricing' },
  ])
    await createGoal(db, website.id, goalInput(fields));
  await createFunnel(db, website.id, {
    name: 'Pricing to sign-up',
    steps: [{ page: '/' }, { page: '/pricing' }, { event: 'signup' }],
  });
  await createSegment(
    db,
    website.id,
    { personId: owner.id, admin: true },
    segmentInput({
      name: 'Phones from search',
      type: 'site',
      filters: [
        ['is', 'visit:device', ['Mobile']],
        ['is', 'visit:channel', ['Organic Search']],
      ],
    }),
  );
  return { owner, website, from: day(Date.now() - 89 * DAY), to: day(Date.now()) };
}

/**
 * The demo's custom events as its tracker would send them (Plausible's format): a name, the
 * page, custom properties, and a purchase's revenue in US dollars.
 */
function asTrackerEvent(random: () => number) {
  return (hit: GeneratedHit): GeneratedHit => {
    const event = hit.body.event as { name: string; value?: unknown } | undefined;
    if (!event) return hit;
    const props: Record<string, string> =
      event.name === 'signup'
        ? { plan: random() < 0.7 ? 'free' : 'pro' }
        : event.name === 'download'
          ? { format: String(event.value) }
          : { plan: event.value === 99 ? 'pro' : 'starter' };
    const body: Record<string, unknown> = {
      name: event.name,
      url: hit.body.page,
      referrer: hit.body.referrer,
      props,
    };
    if (event.name === 'purchase') body.revenue = { amount: event.value, currency: 'USD' };
    return { body, req: hit.req };
  };
}

/**
 * A page view followed by the engagements the tracker sends for it as the visitor leaves
 * (seconds seen and deepest scroll, `random`-drawn under the mix of ./engagement-mix.ts: none
 * for a view seen less than 15 s), each when it is sent: the demo's time on page and scroll
 * depth.
 */
const withEngagement =
  (random: () => number) =>
  (hit: GeneratedHit): GeneratedHit[] => {
    if (hit.body.name) return [hit];
    const { page, domain } = hit.body;
    return [
      hit,
      ...engagementSends(random).map(({ after, ms, scroll }) => ({
        body: { page, domain, engagement: { ms, scroll } },
        req: { ...hit.req, now: hit.req.now + after },
      })),
    ];
  };

/**
 * Sends 90 days of generated traffic for the demo website through the running Worker at
 * `base` (its replay route), reporting progress through `log`.
 */
export async function replayDemoTraffic(
  base: string,
  log: (line: string) => void = () => undefined,
) {
  const today = new Date();
  const hits = generateTraffic({
    seed: 42,
    domain: DEMO.domain,
    days: 90,
    end: Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + DAY,
    visitorsPerDay: 30,
  })
    .filter((hit) => hit.req.now <= Date.now())
    .map(asTrackerEvent(rng(7)))
    .flatMap(withEngagement(rng(49)))
    // Each hit when it is sent: an engagement among the next page views' hits.
    .filter((hit) => hit.req.now <= Date.now())
    .sort((a, b) => a.req.now - b.req.now);
  log(`Loading 90 days of sample traffic (${hits.length} hits) through the hit pipeline…`);
  const started = Date.now();
  const loaded = await replayTraffic(base, hits, (done) =>
    log(`  ${done} of ${hits.length} hits (${Math.round((100 * done) / hits.length)}%)`),
  );
  log(
    `  ${loaded.stored} hits counted, ${loaded.dropped} dropped (${Object.entries(loaded.reasons)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return loaded;
}
