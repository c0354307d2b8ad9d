import { exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { makeOwner, makeWebsite } from '../../support/api.ts';

it("keeps the full view's search and sort when the range changes", async () => {
  const { key } = await makeOwner();
  const site = await makeWebsite(key, { domain: 'ranges.example.com', privacy: '0' });
  const res = await exports.default.fetch(
    `https://sightline.test/stats/${site.domain}/page?range=30d&search=abc&sort_by=value&sort=asc`,
  );
  const html = await res.text();
  expect(html).toContain(
    `href="/stats/${site.domain}/page?range=7d&amp;search=abc&amp;sort_by=value&amp;sort=asc"`,
  );
  expect(html).toContain('<input type="hidden" name="search" value="abc"/>');
});
