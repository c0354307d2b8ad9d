/**
 * The dashboard's script's parts for the settings and the API reference (bundled into
 * app.js with ./page-script.ts, which runs them): a search box over a page's sections, a
 * field shown for one value of another, a new website's time zone, its first page view
 * awaited, and the funnel builder (./funnel-script.ts).
 */
import { funnelBuilder } from './funnel-script.ts';

/** Every part, each doing nothing on a page without what it serves. */
export function settingsParts(): void {
  searchSections();
  showFieldsIf();
  browserTimeZone();
  waitForFirstHit();
  funnelBuilder();
}

/**
 * A search box over a page's sections (`[data-search-sections="<selector>"]`, hidden until
 * shown here: without a script the contents are a plain list; the API reference): as one
 * types, the sections whose text holds every word typed stay, the others and their entries
 * in the contents (the links to their ids) are hidden, and a note says when none is left.
 */
function searchSections(): void {
  const box = document.querySelector<HTMLElement>('[data-search-sections]');
  const field = box?.querySelector('input');
  if (!box || !field) return;
  const sections = [...document.querySelectorAll<HTMLElement>(box.dataset.searchSections ?? '')];
  const texts = new Map(sections.map((s) => [s, (s.textContent ?? '').toLowerCase()]));
  const none = box.parentElement?.querySelector<HTMLElement>('.none');
  box.hidden = false;
  field.addEventListener('input', () => {
    const words = field.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const [section, text] of texts) {
      const kept = words.every((word) => text.includes(word));
      section.hidden = !kept;
      if (kept) shown++;
      const entry = document.querySelector(`a[href="#${section.id}"]`)?.closest('li');
      if (entry) entry.hidden = !kept;
    }
    if (none) none.hidden = shown > 0;
  });
}

/**
 * A field shown only for one value of another control of its form (`data-shown-if="name=value"`,
 * ../layout/layout.tsx `Field`): the password of a password-protected statistics page. Shown
 * without a script.
 */
function showFieldsIf(): void {
  const fields = [...document.querySelectorAll<HTMLElement>('[data-shown-if]')];
  const update = () => {
    for (const field of fields) {
      const [name = '', value] = (field.dataset.shownIf ?? '').split('=');
      const control = field.closest('form')?.elements.namedItem(name) as HTMLSelectElement | null;
      if (control) field.hidden = control.value !== value;
    }
  };
  update();
  document.addEventListener('change', update);
}

/**
 * A new website's time zone (`input[data-browser-zone]`): the browser's, when it is one the
 * form offers (its list), in place of the default.
 */
function browserTimeZone(): void {
  const field = document.querySelector<HTMLInputElement>('input[data-browser-zone]');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!field || !zone || !field.list) return;
  if ([...field.list.options].some((option) => option.value === zone)) field.value = zone;
}

/**
 * A new website's "waiting for the first page view" (`[data-received]`, the address that says
 * whether it has one): asked every 5 seconds while the page is shown, until it has.
 */
function waitForFirstHit(): void {
  const line = document.querySelector<HTMLElement>('[data-received]');
  if (!line || !window.fetch) return;
  const ask = () => {
    if (document.hidden) return;
    fetch(line.dataset.received ?? '', { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<{ received: boolean }>) : null))
      .then((answer) => {
        if (!answer?.received) return;
        clearInterval(timer);
        const link = line.querySelector('a');
        line.replaceChildren('Received: the first page view is in. ');
        if (link) {
          link.hidden = false;
          line.append(link);
        }
      })
      .catch(() => {});
  };
  const timer = window.setInterval(ask, 5_000);
}
