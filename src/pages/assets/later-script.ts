/**
 * The statistics page's parts that follow a change made in place (docs/ARCHITECTURE.md, "The
 * statistics page"): htmx's request is answered with the new view's figures first, the parts
 * that take another pass of the website's log — the figures' changes under filters, the
 * compared points and changes, the top pages' engagement — marked `data-later` with a neutral
 * mark (../statistics/totals.tsx). Once such a view is in place, the whole view is asked for at
 * its address (a plain GET: the page as a load gets it, complete) and morphed over the page by
 * htmx as a change in place is, so the focus and the scroll stay, and a menu opened meanwhile
 * stays open. An answer for an address the page has left since is dropped: the view shown
 * asks for its own. The second request counts against the readers' limits as any read does.
 */

/** What this script uses of htmx (loaded before it on the statistics pages). */
type Htmx = {
  config: { morphIgnore: string[] };
  swap(ctx: { text: string; target: Element; select: string; swap: string }): Promise<void>;
};

export function laterParts(): void {
  if (!window.fetch) return;
  /** The address whose whole view is being asked for ('' when none is). */
  let asked = '';
  /** Whether the swap under way is this script's (whose answer has nothing later). */
  let ours = false;
  const follow = (): void => {
    const htmx = (window as unknown as { htmx?: Htmx }).htmx;
    const at = location.href;
    if (ours || !htmx || at === asked || !document.querySelector('#main [data-later]')) return;
    asked = at;
    fetch(at, { credentials: 'same-origin' })
      .then((res) => {
        // Over the readers' limits (a 429): asked again once the window has passed.
        const wait = Number(res.headers.get('Retry-After'));
        if (res.status === 429) setTimeout(follow, Math.min(60, wait > 0 ? wait : 10) * 1000);
        return res.ok ? res.text() : null;
      })
      .then((html) => {
        if (asked === at) asked = '';
        // The page moved on (another view, a tab chosen): the address now shown is asked.
        if (location.href !== at) return follow();
        const main = document.getElementById('main');
        if (!html || !main?.querySelector('[data-later]')) return;
        const { config } = htmx;
        const ignored = config.morphIgnore;
        // The same address: what differs but the numbers is the reader's doing (a menu opened).
        config.morphIgnore = [...ignored, 'open'];
        ours = true;
        return htmx
          .swap({ text: html, target: main, select: '#main', swap: 'outerMorph' })
          .finally(() => {
            ours = false;
            config.morphIgnore = ignored;
          });
      })
      .catch(() => {
        if (asked === at) asked = '';
      });
  };
  document.addEventListener('htmx:after:swap', follow);
}
