/**
 * "Only the first owner may sign up" must hold when several sign-ups arrive at once on a
 * fresh installation (D1 is fresh for this file: nobody has an account yet).
 */
import { expect, it } from 'vitest';
import { snapshot } from '../../support/api.ts';
import { newBrowser } from '../../support/browser-session.ts';

it('concurrent first sign-ups: exactly one owner is created, the others are refused', async () => {
  expect(await snapshot('owners')).toEqual([]);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      newBrowser().post('/register', {
        email: `racer-${i}@example.com`,
        password: 'a long enough password',
      }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  expect(statuses).toEqual([201, 403, 403, 403, 403]);
  expect(await snapshot('owners')).toHaveLength(1);
  expect(await snapshot('api_keys')).toHaveLength(1);
});
