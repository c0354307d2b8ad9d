/** The demo owner and website, with 90 days of sample traffic through the real pipeline. */
import { createOwner } from '../../src/accounts/owners.ts';
import type { Database } from '../../src/db/client.ts';
import { createWebsite } from '../../src/websites/service.ts';
import { generateTraffic, loadTraffic } from './traffic.ts';

export const DEMO = {
  email: 'demo@sightline.local',
  password: 'sightline-demo',
  domain: 'demo.example.com',
};

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function seedDemo(db: Database, log: (line: string) => void = () => undefined) {
  const owner = await createOwner(db, { email: DEMO.email, password: DEMO.password });
  const website = await createWebsite(db, owner.id, { domain: DEMO.domain, privacy: 0 });
  const today = new Date();
  const hits = generateTraffic({
    seed: 42,
    domain: DEMO.domain,
    days: 90,
    end: Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) + DAY,
    visitorsPerDay: 30,
  }).filter((hit) => hit.req.now <= Date.now());
  log(`Generating 90 days of sample traffic (${hits.length} hits)…`);
  const loaded = await loadTraffic(db, hits);
  log(`  ${loaded.stored} hits counted, ${loaded.dropped} dropped (bots)`);
  return { owner, website, from: day(Date.now() - 89 * DAY), to: day(Date.now()) };
}
