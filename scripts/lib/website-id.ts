/** What the command-line tools ask of a running Sightline through its API v1. */
import { fail } from './d1.ts';

/** The id of the key's website with this domain, looked up a page of the list at a time. */
export async function websiteIdOf(
  base: string,
  headers: Record<string, string>,
  domain: string,
): Promise<number> {
  for (let page = 1; ; page++) {
    const res = await fetch(`${base}/api/v1/websites?per_page=100&page=${page}`, { headers });
    if (!res.ok) fail(`${base}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as {
      data: { id: number; domain: string }[];
      meta: { last_page: number };
    };
    const found = body.data.find((w) => w.domain === domain.toLowerCase());
    if (found) return found.id;
    if (page >= body.meta.last_page) fail(`the key's owner has no website ${domain}`);
  }
}
