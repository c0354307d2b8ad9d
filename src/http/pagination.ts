/** Pagination shared by the list endpoints (page numbers, per-page choices, links). */
import { field, intChoice } from '../lib/fields.ts';
import { s } from '../lib/json-schema.ts';

const PER_PAGE = [10, 25, 50, 100] as const;

export const perPageField = (fallback: number) =>
  intChoice('per_page', PER_PAGE, `Results per page. Defaults to ${fallback}.`).optional();

export const pageField = field<number>(
  { type: 'integer', minimum: 1, description: 'The page to return. Defaults to 1.' },
  (raw) => {
    const n =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^\d{1,9}$/.test(raw)
          ? Number(raw)
          : Number.NaN;
    return Number.isInteger(n) && n >= 1 && n <= 1_000_000_000
      ? { ok: true, value: n }
      : { ok: false, message: 'The page field must be an integer of at least 1.' };
  },
).optional();

/**
 * Absolute URL of `page` for the current request, keeping every other query parameter
 * (`name`: the parameter that numbers pages).
 */
function pageUrl(requestUrl: string, page: number, name = 'page'): string {
  const url = new URL(requestUrl);
  url.searchParams.set(name, String(page));
  return url.toString();
}

function pathOf(requestUrl: string): string {
  const url = new URL(requestUrl);
  return `${url.origin}${url.pathname}`;
}

/** Offsets and bounds of one page of `total` rows. */
function pageWindow(total: number, page: number, perPage: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const offset = (page - 1) * perPage;
  return { lastPage, offset };
}

/** `from`/`to` of a page: 1-based positions of its first and last row, null when empty. */
function pageRange(offset: number, count: number) {
  return count > 0 ? { from: offset + 1, to: offset + count } : { from: null, to: null };
}

/**
 * A page of rows as the statistics answer it (Laravel's paginator: `current_page`, `data`,
 * the pages' URLs, `from`/`to`, `total`); `name`: the parameter that numbers pages.
 */
export function statsPage<T>(
  requestUrl: string,
  at: { page: number; perPage: number; name?: string },
  rows: T[],
  total: number,
) {
  const { page, perPage, name = 'page' } = at;
  const { lastPage, offset } = pageWindow(total, page, perPage);
  const range = pageRange(offset, rows.length);
  return {
    current_page: page,
    data: rows,
    first_page_url: pageUrl(requestUrl, 1, name),
    from: range.from,
    last_page: lastPage,
    last_page_url: pageUrl(requestUrl, lastPage, name),
    next_page_url: page < lastPage ? pageUrl(requestUrl, page + 1, name) : null,
    path: pathOf(requestUrl),
    per_page: perPage,
    prev_page_url: page > 1 ? pageUrl(requestUrl, page - 1, name) : null,
    to: range.to,
    total,
    status: 200,
  };
}

/** A page of a list as the API's lists answer it: `data`, `links` and `meta`. */
export function listPage<T>(
  requestUrl: string,
  at: { page: number; perPage: number },
  rows: T[],
  total: number,
) {
  const { page, perPage } = at;
  const { lastPage, offset } = pageWindow(total, page, perPage);
  const range = pageRange(offset, rows.length);
  return {
    data: rows,
    links: {
      first: pageUrl(requestUrl, 1),
      last: pageUrl(requestUrl, lastPage),
      prev: page > 1 ? pageUrl(requestUrl, page - 1) : null,
      next: page < lastPage ? pageUrl(requestUrl, page + 1) : null,
    },
    meta: {
      current_page: page,
      from: range.from,
      last_page: lastPage,
      path: pathOf(requestUrl),
      per_page: perPage,
      to: range.to,
      total,
    },
    status: 200,
  };
}

export const linksSchema = s
  .object({
    first: s.string().url(),
    last: s.string().url(),
    prev: s.string().url().nullable(),
    next: s.string().url().nullable(),
  })
  .openapi('PaginationLinks');

export const metaSchema = s
  .object({
    current_page: s.number().int(),
    from: s.number().int().nullable(),
    last_page: s.number().int(),
    path: s.string().url(),
    per_page: s.number().int(),
    to: s.number().int().nullable(),
    total: s.number().int(),
  })
  .openapi('PaginationMeta');
