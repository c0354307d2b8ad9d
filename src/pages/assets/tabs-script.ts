/**
 * The statistics page's tabs (../statistics/panels/panels.tsx), for the page's script
 * (./page-script.ts): shown in place, loaded in place when their rows are not in the page,
 * moved between with the keys of ARIA's tabs pattern.
 */

/**
 * Shows a group's tab in place (../statistics/panels/panels.tsx): every tab's table is in the page (but a
 * log's listing not read: then its link is followed), so the chosen one is shown and the
 * others hidden. The address becomes the tab's link, and the
 * links and GET forms to this page carry the group's parameter (`sources=campaign`) as the
 * server would have rendered them, so a range or a filter chosen next keeps the tab.
 */
/** Whether a tab's rows are not in the page (`data-load`): it is then its link. */
const loads = (tab: Element) =>
  document.getElementById(tab.getAttribute('aria-controls') ?? '')?.hasAttribute('data-load');

/** What this script uses of htmx to load a tab's panel (loaded before it on these pages). */
type Htmx = {
  ajax(verb: 'GET', path: string, options: Record<string, unknown>): Promise<void>;
};

/**
 * Loads a tab's rows in place: its panel alone is asked for (`Sightline-Part`, which the
 * server answers with that panel: ../statistics/panels/panels.tsx `panelPart`) and morphed in,
 * then shown as any tab is. False without htmx (the tab's link is then followed); a panel
 * still unread after its answer (the range cannot be read so) is its link followed.
 */
function loadTab(tab: HTMLAnchorElement, focus?: boolean): boolean {
  const htmx = (window as unknown as { htmx?: Htmx }).htmx;
  const id = tab.getAttribute('aria-controls');
  if (!htmx || !id) return false;
  const follow = () => location.assign(tab.href);
  htmx
    .ajax('GET', tab.href, {
      target: `#${id}`,
      select: `#${id}`,
      swap: 'outerMorph',
      headers: { 'Sightline-Part': id },
    })
    .then(() => (loads(tab) ? follow() : selectTab(tab, focus)), follow);
  return true;
}

function selectTab(tab: HTMLAnchorElement, focus?: boolean): void {
  if (loads(tab)) {
    if (!loadTab(tab, focus)) tab.click();
    return;
  }
  const list = tab.parentNode as ParentNode;
  // The group's section's id is the parameter naming its chosen tab.
  const group = (tab.closest('section') as HTMLElement).id;
  const value = new URL(tab.href).searchParams.get(group);
  for (const other of list.querySelectorAll('[role=tab]')) {
    const panel = document.getElementById(other.getAttribute('aria-controls') ?? '');
    other.setAttribute('aria-selected', other === tab ? 'true' : 'false');
    if (panel) panel.hidden = other !== tab;
  }
  if (history.replaceState) history.replaceState(null, '', tab.href);
  keepTabInLinks(group, value);
  keepTabInForms(group, value);
  if (focus) tab.focus();
}

/**
 * The links to this page (the group's own tabs aside) choose the group's tab `value` (none:
 * the default).
 */
function keepTabInLinks(group: string, value: string | null): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>(
    `a[href]:not(#${group} [role=tab])`,
  )) {
    const url = new URL(link.href);
    if (url.pathname !== location.pathname) continue;
    if (value) url.searchParams.set(group, value);
    else url.searchParams.delete(group);
    link.href = url.href;
  }
}

/** The GET forms to this page carry the group's tab `value` in a hidden field (none: no field). */
function keepTabInForms(group: string, value: string | null): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[method=get]')) {
    if (new URL(form.action).pathname !== location.pathname) continue;
    let field = form.querySelector<HTMLInputElement>(`input[type=hidden][name="${group}"]`);
    if (!value) {
      if (field) field.remove();
      continue;
    }
    if (!field) {
      field = document.createElement('input');
      field.type = 'hidden';
      field.name = group;
      form.appendChild(field);
    }
    field.value = value;
  }
}

/**
 * Adds the tabs' listeners (after the shortcuts': those see a key first). `elementOf`: the
 * element an event happened on, when it is one.
 */
export function tabParts(elementOf: (event: Event) => Element | null): void {
  // A tab clicked is shown in place; a click with a modifier or another button still opens the
  // tab's link (in a new tab or window).
  document.addEventListener('click', (event) => {
    const tab = elementOf(event)?.closest<HTMLAnchorElement>('[role=tab]');
    if (!tab || event.button || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)
      return;
    // A tab to load is asked for alone (without the page's library, its link is followed).
    if (loads(tab) && !loadTab(tab)) return;
    event.preventDefault();
    if (!loads(tab)) selectTab(tab);
  });

  // A tab list's keys, as ARIA's tabs pattern has them: the arrows go to the tab before or after
  // (round the ends), Home to the first, End to the last; the tab reached is shown and focused.
  document.addEventListener('keydown', (event) => {
    const tab = elementOf(event);
    if (tab?.getAttribute('role') !== 'tab') return;
    const tabs = [
      ...(tab.parentNode as ParentNode).querySelectorAll<HTMLAnchorElement>('[role=tab]'),
    ];
    const i = tabs.indexOf(tab as HTMLAnchorElement);
    const next =
      event.key === 'ArrowRight'
        ? tabs[(i + 1) % tabs.length]
        : event.key === 'ArrowLeft'
          ? tabs[(i + tabs.length - 1) % tabs.length]
          : event.key === 'Home'
            ? tabs[0]
            : event.key === 'End'
              ? tabs[tabs.length - 1]
              : null;
    if (!next) return;
    event.preventDefault();
    selectTab(next, true);
  });
}
