/**
 * The hit pipeline runs its steps in the order docs/ARCHITECTURE.md ("The path of a hit")
 * says: the list the code runs (`HIT_STEP_ORDER`, src/ingest/pipeline.ts) is the list the
 * document quotes, so the two cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { HIT_STEP_ORDER } from '../../src/ingest/pipeline.ts';

it('runs the drops, then the rate limit, in the order the architecture quotes', () => {
  const doc = readFileSync(new URL('../../docs/ARCHITECTURE.md', import.meta.url), 'utf8');
  const step = doc.slice(doc.indexOf('4. **Drop** or **limit**'), doc.indexOf('5. **Enrich**'));
  const quoted = [...step.slice(step.indexOf('run in this order')).matchAll(/`([a-z_]+)`/g)].map(
    (m) => m[1],
  );
  // A website not found is dropped before the list runs (finding it is a step of its own).
  expect(quoted.filter((name) => name !== 'unknown_site')).toEqual([...HIT_STEP_ORDER]);
  expect(HIT_STEP_ORDER.at(-1)).toBe('rate_limited');
});
