/**
 * The funnel builder on a website's funnels page (`fieldset[data-funnel-builder]`,
 * ../settings/funnels-section.tsx): the steps in use and one more are shown ("Add a step" shows
 * the next), a step moves up or down, a step's field offers the website's pages, events or
 * goals as its kind says, and as the funnel is built each step's visitors of the last 30 days
 * are asked for (`{data-funnel-builder}?steps=[…]`) and shown beside it. Without this script
 * every row shows and the form posts the same fields.
 */

type Row = { item: HTMLElement; kind: HTMLSelectElement; value: HTMLInputElement };

const LISTS: Record<string, string> = {
  page: 'suggested-pages',
  event: 'suggested-events',
  goal: 'suggested-goals',
};

/** How long typing pauses before the counts are asked for again. */
const PAUSE_MS = 400;

function rowsOf(builder: HTMLElement): Row[] {
  return [...builder.querySelectorAll<HTMLElement>('[data-step]')].flatMap((item) => {
    const kind = item.querySelector('select');
    const value = item.querySelector('input');
    return kind && value ? [{ item, kind, value }] : [];
  });
}

export function funnelBuilder(): void {
  const builder = document.querySelector<HTMLElement>('[data-funnel-builder]');
  if (!builder) return;
  const rows = rowsOf(builder);
  const add = builder.querySelector<HTMLButtonElement>('[data-add-step]');
  const preview = builder.querySelector<HTMLElement>('[data-preview]');
  const lastUsed = rows.reduce((last, row, i) => (row.value.value.trim() ? i : last), -1);
  let shown = Math.min(rows.length, Math.max(2, lastUsed + 2));
  const show = () => {
    rows.forEach((row, i) => {
      row.item.hidden = i >= shown;
      // The first step cannot move up, nor the last shown down.
      for (const move of row.item.querySelectorAll<HTMLButtonElement>('[data-move]'))
        move.disabled = move.dataset.move === '-1' ? i === 0 : i >= shown - 1;
    });
    if (add) add.hidden = shown >= rows.length;
  };
  for (const moves of builder.querySelectorAll<HTMLElement>('.step-moves')) moves.hidden = false;
  show();
  add?.addEventListener('click', () => {
    shown++;
    show();
    rows[shown - 1]?.value.focus();
  });

  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const count = async () => {
    const used = rows.filter((row) => row.value.value.trim() !== '');
    for (const row of rows) {
      const output = row.item.querySelector('output');
      if (output) output.textContent = '';
    }
    if (!preview) return;
    if (used.length < 2) {
      preview.textContent = 'Give two steps or more to see how many visitors take them.';
      return;
    }
    const steps = used.map((row) => ({ [row.kind.value]: row.value.value.trim() }));
    const mine = ++asked;
    preview.textContent = 'Counting…';
    try {
      const answer = await fetch(
        `${builder.dataset.funnelBuilder}?steps=${encodeURIComponent(JSON.stringify(steps))}`,
        { headers: { accept: 'application/json' } },
      );
      const body = (await answer.json()) as {
        error?: string;
        range?: string;
        steps?: { label: string }[];
      };
      if (mine !== asked) return;
      if (!answer.ok || !body.steps) {
        preview.textContent = body.error ?? 'The counts are not available now.';
        return;
      }
      body.steps.forEach((step, i) => {
        const output = used[i]?.item.querySelector('output');
        if (output) output.textContent = step.label;
      });
      preview.textContent = `Visitors of the last 30 days (${body.range}), as the funnel stands.`;
    } catch {
      if (mine === asked) preview.textContent = 'The counts are not available now.';
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(count, PAUSE_MS);
  };

  builder.addEventListener('input', later);
  builder.addEventListener('change', (event) => {
    const kind = event.target;
    if (kind instanceof HTMLSelectElement) {
      const row = rows.find((r) => r.kind === kind);
      row?.value.setAttribute('list', LISTS[kind.value] ?? '');
    }
    later();
  });
  builder.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest<HTMLButtonElement>('[data-move]');
    if (!button) return;
    const from = rows.findIndex((row) => row.item.contains(button));
    const to = from + Number(button.dataset.move);
    const [a, b] = [rows[from], rows[to]];
    if (!a || !b || to >= shown) return;
    [a.kind.value, b.kind.value] = [b.kind.value, a.kind.value];
    [a.value.value, b.value.value] = [b.value.value, a.value.value];
    for (const row of [a, b]) row.value.setAttribute('list', LISTS[row.kind.value] ?? '');
    b.value.focus();
    later();
  });
  if (lastUsed >= 1) later();
}
