/**
 * How long page views are seen and how they are left, as the benchmark and the demo data
 * assume it, and the engagements the default tracker sends for them under its rule
 * (src/tracker/script.ts; docs/ARCHITECTURE.md, "Time on page and scroll depth"). The mix:
 *
 * - The time a page view is seen (visible and focused) follows a Weibull distribution of
 *   shape 0.5 and scale 23.5 s. Shape below 1 ("negative aging": most views are left in
 *   their first seconds, the rest are read for long) is what Liu, White and Dumais found over
 *   2 billion dwell times of 205,873 pages (SIGIR 2010; Nielsen's summary: "users often leave
 *   Web pages in 10–20 seconds", the average a little under a minute); the scale puts 55 % of
 *   views under 15 s, as Chartbeat measured of 2 billion visits of mostly news sites (Haile,
 *   Time, March 2014: "55% spent fewer than 15 seconds actively on a page"). The mean is 47 s,
 *   "a little under a minute" too: the two measures agree under one distribution. Chartbeat
 *   counts a reader active, which a page visible and focused may not be, so fewer views may be
 *   glances by Sightline's measure: were half of them under 15 s (the mean then 62 s), the
 *   engagements would be about 0.58 a page view; 45 % (84 s), about 0.64.
 * - One view in four (`RETURNS`) is hidden and shown again once before it is left (the
 *   visitor switches to another tab or app and comes back), its time split at random between
 *   the two, its deepest scroll grown after the return half of the time: an assumption, on
 *   the costly side (each return may send one engagement more).
 * - Every view is left in a way the tracker sees (an SPA navigation, the tab hidden, the page
 *   unloaded): no engagement is lost, also on the costly side.
 *
 * The tracker sends a view's engagement as it is left, once the view has been seen 15 s
 * (`SEEN_MS`), and then again only when the deepest scroll grew or the time grew by 3 s
 * (Plausible's rule). Under this mix 45 % of views send one, and about 0.52 engagements go per
 * page view in all.
 */

/** The mix and the rule in a sentence, for the benchmark's report (scripts/bench/report.ts). */
export const ENGAGEMENT_MIX =
  "the time a view is seen drawn from a Weibull distribution of shape 0.5 and scale 23.5 s (55 % of views under 15 s, as Chartbeat measured over 2 billion visits; most views left in their first seconds, as Liu, White and Dumais found of 2 billion dwell times; 47 s on average), one view in four hidden and shown again once before it is left, every view's leaving seen by the tracker; the tracker sends nothing for a view seen less than 15 s, then its engagement as it is left, and again only when its deepest scroll grew or its time grew by 3 s (scripts/lib/engagement-mix.ts)";

/** The engaged time's Weibull distribution: shape and scale (ms). */
const SHAPE = 0.5;
const SCALE_MS = 23_500;

/** The share of page views hidden and shown again once before they are left. */
const RETURNS = 0.25;

/** A view's first engagement waits until it has been seen this long (src/tracker/script.ts). */
const SEEN_MS = 15_000;

/** A view already sent sends again when its time grew this much (or its scroll deepened). */
const MORE_MS = 3_000;

/** One engagement hit: its cumulative time and deepest scroll, and when it is sent. */
type EngagementSend = {
  /** Milliseconds after the page view that it is sent. */
  after: number;
  ms: number;
  scroll: number;
};

/** The time a page view is seen, drawn from the mix's distribution (inverse transform). */
const seenMs = (random: () => number) =>
  Math.round(SCALE_MS * (-Math.log(1 - random())) ** (1 / SHAPE));

/**
 * The engagements the tracker sends for one page view of the mix, drawn with `random`: none,
 * one, or two for a view left twice (hidden, shown again, then left).
 */
export function engagementSends(random: () => number): EngagementSend[] {
  const seen = seenMs(random);
  // The deepest scroll: the first screen at least (a fifth of a long page), deeper as it is read.
  const scroll = Math.min(100, Math.round(20 + random() * 80));
  const returned = random() < RETURNS;
  const firstPart = returned ? Math.round(seen * random()) : seen;
  const leaves = returned
    ? [
        // Hidden for a while (30 s) before it is shown again.
        { ms: firstPart, scroll: Math.max(20, scroll - 20), at: firstPart },
        {
          ms: seen,
          scroll: random() < 0.5 ? scroll : Math.max(20, scroll - 20),
          at: seen + 30_000,
        },
      ]
    : [{ ms: seen, scroll, at: seen }];
  const sends: EngagementSend[] = [];
  let sent: { ms: number; scroll: number } | undefined;
  for (const leave of leaves) {
    const due = sent
      ? leave.scroll > sent.scroll || leave.ms - sent.ms >= MORE_MS
      : leave.ms >= SEEN_MS;
    if (!due) continue;
    sent = { ms: leave.ms, scroll: leave.scroll };
    // Sent as the view is left: a second after the time it measures, at the earliest.
    sends.push({ after: leave.at + 1_000, ms: leave.ms, scroll: leave.scroll });
  }
  return sends;
}
