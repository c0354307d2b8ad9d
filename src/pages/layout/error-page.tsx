/**
 * Errors of the pages as a person sees them: the one `onError` (src/app/app.tsx) renders every
 * error outside the API and the hit endpoints — unknown addresses, forms that are too
 * large, unreadable or unverified, limits, failures — as this page in the site's layout,
 * with the error's status code and headers. Pages throw; they never render an error
 * themselves.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env.ts';
import type { ErrorAnswer } from '../../lib/errors.ts';
import { render } from './layout.tsx';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  403: 'Not allowed',
  404: 'Not found',
  413: 'Too large',
  415: 'Unsupported',
  422: 'Not valid',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Unavailable',
};

/** What a person reads for the API's generic messages. */
const PAGE_TEXT: Record<string, string> = {
  'Server Error.': 'Something went wrong on our side. Try again in a moment.',
  'Not found.': 'There is nothing at this address.',
};

export async function renderErrorPage(c: Context<AppEnv>, answer: ErrorAnswer) {
  const title = TITLES[answer.status] ?? 'Error';
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  return render(
    c,
    {
      title,
      children: (
        <>
          <h1>{title}</h1>
          <p class="error-message">{PAGE_TEXT[answer.body.message] ?? answer.body.message}</p>
          <p>
            <a href="/">Go to the start page</a>
          </p>
        </>
      ),
    },
    answer.status,
  );
}
