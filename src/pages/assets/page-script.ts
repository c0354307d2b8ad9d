/**
 * The dashboard's one script, served as `/assets/app.{hash}.js` (src/pages/assets/serve.ts) and
 * loaded with `defer` by every page (src/pages/layout/layout.tsx). Built and minified by
 * `npm run build:assets`; type-checked against the DOM by its own tsconfig.json (the Worker's
 * has no DOM).
 *
 * Copy buttons, an import's upload progress, the statistics page's keyboard shortcuts (a key
 * per range, `x` compares, `?` lists them; the arrow keys move between the chart's points and
 * a group's tabs), its tabs switched in place, its realtime figure asked for again every 30 s
 * while shown, the secret after a link's `#` put in its form (../layout/fragment-form.tsx), the
 * filter menu's suggested values, an embed's height told to its frame (./embed-script.ts), the
 * parts of a view changed in place that follow its figures (./later-script.ts):
 * progressive enhancement, everything works without it (the upload is then a plain form post, a
 * tab a link, the figure as of the page's load, the secret typed, a value typed whole).
 *
 * Listeners are on the document, so they serve whatever the page holds; the order they are
 * added in matters (the shortcuts' listener sees a key before the chart's and the tabs').
 */

import { embedParts } from './embed-script.ts';
import { laterParts } from './later-script.ts';
import { settingsParts } from './settings-script.ts';
import { tabParts } from './tabs-script.ts';

/** An element that can take the focus: an HTML element, or an SVG one (a chart's point). */
type Focusable = Element & HTMLOrSVGElement;

/** The element the event happened on, when it is one (not the document, not a text node). */
function elementOf(event: Event): Element | null {
  return event.target instanceof Element ? event.target : null;
}

// A copy button (`data-copy="{id}"`) copies the text of the element with that id: an API key,
// the tracker's snippet.
document.addEventListener('click', (event) => {
  const button = elementOf(event)?.closest('[data-copy]');
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy') ?? '');
  if (source && navigator.clipboard) {
    const label = button.textContent;
    navigator.clipboard.writeText(source.textContent ?? '').then(() => {
      button.textContent = 'Copied';
      setTimeout(() => {
        button.textContent = label;
      }, 3000);
    });
  }
});

/**
 * An import's form (`data-upload`, ../settings/imports-section.tsx) posted with XMLHttpRequest, whose upload
 * reports its progress: the form's `<progress>` shows it, the button says what is happening.
 * The answer replaces the page as a plain post's would: a redirect is followed to the imports'
 * section, an error page (a 422 naming the file) is written in place of this one. Should the
 * request fail, the form is posted the plain way.
 */
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-upload') || !window.FormData)
    return;
  event.preventDefault();
  const progress = form.querySelector('progress');
  const button = form.querySelector<HTMLButtonElement>('button[type=submit]');
  const request = new XMLHttpRequest();
  request.open('POST', form.action);
  request.upload.onprogress = (sent) => {
    if (sent.lengthComputable && progress) {
      progress.hidden = false;
      progress.value = Math.round((sent.loaded / sent.total) * 100);
      progress.textContent = `${progress.value}%`;
    }
  };
  request.upload.onload = () => {
    if (button) button.textContent = 'Counting the imported rows…';
  };
  request.onload = () => {
    if (request.status < 300 && request.responseURL) {
      location.href = `${request.responseURL}#imports`;
    } else {
      document.open();
      document.write(request.responseText);
      document.close();
    }
  };
  request.onerror = () => {
    form.submit();
  };
  if (button) {
    button.disabled = true;
    button.textContent = 'Uploading…';
  }
  request.send(new FormData(form));
});

/**
 * The statistics page's shortcuts (../statistics/view.tsx): `?` opens the dialog that lists them;
 * a letter follows the link marked `data-key="{letter}"` (a range, `x` to compare) or focuses
 * the field so marked (the custom range's first date). Never while a modifier is held, nor
 * while typing into a field.
 */
document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  const target = event.target;
  if (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  )
    return;
  const dialog = document.getElementById('shortcuts') as HTMLDialogElement | null;
  // `showModal` is missing where the browser has no <dialog>.
  if (event.key === '?' && dialog?.showModal) {
    event.preventDefault();
    if (!dialog.open) dialog.showModal();
    return;
  }
  // Only printable keys: `ArrowLeft`, `Home`, … are left to the listeners below.
  if (event.key.length !== 1) return;
  const marked = document.querySelector<HTMLElement>(`[data-key="${event.key.toLowerCase()}"]`);
  if (!marked) return;
  event.preventDefault();
  // A link is clicked: the page's library follows it in place, as a click would.
  if (marked instanceof HTMLAnchorElement) marked.click();
  else marked.focus();
});

// The chart's points (`.pt`, ../statistics/chart/chart.tsx) are one stop of the Tab key: the left and
// right arrows move the focus, and that stop, to the point before or after.
document.addEventListener('keydown', (event) => {
  const point = elementOf(event);
  if (!point?.classList.contains('pt')) return;
  const next =
    event.key === 'ArrowRight'
      ? point.nextElementSibling
      : event.key === 'ArrowLeft'
        ? point.previousElementSibling
        : null;
  if (!next?.classList.contains('pt')) return;
  event.preventDefault();
  point.setAttribute('tabindex', '-1');
  next.setAttribute('tabindex', '0');
  (next as Focusable).focus();
});

// A click on a point of the chart (or Enter on it) opens the annotation form on its date, for the
// owner and admins who have one (../statistics/annotation-forms.tsx): "click a date, write the note".
const annotateAt = (point: Element | null) => {
  const date = point?.closest('.pt')?.getAttribute('data-date');
  const form = document.querySelector<HTMLFormElement>('form.annotate');
  const field = form?.querySelector<HTMLInputElement>('input[name="date"]');
  if (!date || !field) return;
  field.value = date;
  // The form is in a small dialog under the chart (a disclosure): opened on the date.
  const dialog = form?.closest('details');
  if (dialog) dialog.open = true;
  form?.querySelector<HTMLInputElement>('input[name="text"]')?.focus();
};
document.addEventListener('click', (event) => annotateAt(event.target as Element | null));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') annotateAt(elementOf(event));
});

// The tabs: shown, loaded and moved between in place (./tabs-script.ts).
tabParts(elementOf);

/**
 * A page opened from a link whose secret is after `#` (a shared link, an invitation, a report's
 * unsubscribe link: ../layout/fragment-form.tsx) puts the secret into its form's `data-fragment` field,
 * takes it out of the address bar and hides the field; a form marked `data-auto` is posted at
 * once.
 */
function fillFragmentForm(): void {
  const field = document.querySelector<HTMLInputElement>('[data-fragment]');
  const secret = location.hash.slice(1);
  if (!field || !secret) return;
  field.value = secret;
  if (history.replaceState) history.replaceState(null, '', location.pathname + location.search);
  const label = field.closest('label');
  if (label) label.hidden = true;
  const form = field.form as HTMLFormElement;
  if (form.hasAttribute('data-auto')) form.submit();
}

/** The answer of the realtime figure's address (`{path}/live.json`). */
interface Live {
  visitors: number;
  formatted: string;
}

/**
 * The statistics page's realtime figure (`data-live="{address}"`, ../statistics/overview-page.tsx) asked for again
 * every 30 seconds, while the page is shown; a failed request leaves the figure as it was.
 */
function refreshLiveFigure(): void {
  if (!window.fetch) return;
  setInterval(() => {
    // Looked for at each turn: the page may have changed in place since.
    const live = document.querySelector('[data-live]');
    if (!live || document.hidden) return;
    fetch(live.getAttribute('data-live') ?? '', { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<Live>) : null))
      .then((figure) => {
        if (!figure) return;
        const count = live.querySelector('strong');
        const unit = live.querySelector('[data-unit]');
        if (count) count.textContent = figure.formatted;
        if (unit) unit.textContent = figure.visitors === 1 ? 'visitor' : 'visitors';
      })
      .catch(() => {});
  }, 30000);
}

/**
 * A part of the page that says how often it changes (`data-refresh="{ms}"`: the realtime view,
 * ../statistics/panels/realtime.tsx) is asked for again that often while the page is shown: the
 * same address is read and the part of the same id put in its place. A failed request leaves
 * it as it was.
 */
function refreshParts(): void {
  if (!window.fetch || !window.DOMParser) return;
  let due = 0;
  setInterval(() => {
    const part = document.querySelector<HTMLElement>('[data-refresh]');
    if (!part || document.hidden || Date.now() < due) return;
    due = Date.now() + Number(part.dataset.refresh);
    const at = location.href;
    fetch(at, { credentials: 'same-origin' })
      .then((res) => (res.ok ? res.text() : null))
      .then((html) => {
        if (!html || location.href !== at) return;
        const fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(part.id);
        if (fresh && part.isConnected) part.replaceChildren(...fresh.childNodes);
      })
      .catch(() => {});
  }, 1000);
}

/** A value the filter menu suggests (`{path}/{name}.json`): as filtered by, and as read. */
interface Suggested {
  value: string;
  label: string;
}

/**
 * The filter menu's suggestions (`form[data-suggest]`, ../statistics/filter-menu.tsx): as one types
 * a value, or chooses another dimension, the range's values of that dimension containing the
 * text are asked for (after a pause of 200 ms) and offered in the field's list; a failed
 * request leaves the list as it was.
 */
function suggestFilterValues(): void {
  if (!window.fetch) return;
  let asked = '';
  let timer = 0;
  // The menu is looked for at each event: the page may have changed in place since.
  const ask = () => {
    const form = document.querySelector<HTMLFormElement>('form[data-suggest]');
    const list = document.getElementById('add-value-list');
    if (!form || !list) return;
    const dimension = form.elements.namedItem('add_filter') as HTMLSelectElement;
    const field = form.elements.namedItem('add_value') as HTMLInputElement;
    const property = (form.elements.namedItem('add_property') as HTMLInputElement).value;
    const key = `${dimension.value}\u0000${property}\u0000${field.value}`;
    if (key === asked) return;
    asked = key;
    const params = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
    for (const name of ['add_filter', 'add_property', 'add_operator', 'add_value'])
      params.delete(name);
    params.set('search', field.value);
    // A custom property's values are its listing's (`property.json?property=plan`).
    if (dimension.value === 'property') params.set('property', property);
    fetch(`${form.dataset.suggest}/${dimension.value}.json?${params.toString()}`, {
      credentials: 'same-origin',
    })
      .then((res) => (res.ok ? (res.json() as Promise<{ values: Suggested[] }>) : null))
      .then((answer) => {
        if (!answer || asked !== key) return;
        list.replaceChildren(
          ...answer.values.map((v) => new Option(v.label === v.value ? '' : v.label, v.value)),
        );
      })
      .catch(() => {});
  };
  const later = () => {
    clearTimeout(timer);
    timer = window.setTimeout(ask, 200);
  };
  const inMenu = (event: Event, name: string) =>
    elementOf(event)?.closest('form[data-suggest]') &&
    elementOf(event)?.getAttribute('name') === name;
  document.addEventListener('input', (event) => {
    if (inMenu(event, 'add_value')) later();
  });
  document.addEventListener('focusin', (event) => {
    if (inMenu(event, 'add_value')) ask();
  });
  document.addEventListener('change', (event) => {
    if (inMenu(event, 'add_filter') || inMenu(event, 'add_property')) later();
  });
}

fillFragmentForm();
refreshLiveFigure();
refreshParts();
suggestFilterValues();
settingsParts();
embedParts();
laterParts();
