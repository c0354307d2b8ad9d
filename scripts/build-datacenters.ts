/**
 * `npm run build:datacenters`: writes src/ingest/steps/datacenters.generated.ts, the hosting and
 * cloud networks whose hits the data-centre rule drops (src/ingest/steps/datacenters.ts), from
 * X4B's list of data-centre autonomous systems (the lists_vpn project's
 * `input/datacenter/ASN.txt`; MIT, copyright X4B (Mathew Heard)), less `PEOPLE_NETWORKS`.
 *
 * It downloads the list from `SOURCE_URL`. `--from FILE` reads a copy of it instead, and
 * `--as-of YYYY-MM-DD` names the date of that copy (default: today), written in the file's
 * header. The build fails when a line of the list is neither an ASN, a comment nor blank, or
 * when the list holds too few networks to be the real one: a change of its format is noticed,
 * never shipped as an empty rule.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeAsns } from '../src/ingest/steps/datacenters.ts';

export const DATACENTERS_FILE = fileURLToPath(
  new URL('../src/ingest/steps/datacenters.generated.ts', import.meta.url),
);

/** The list: one `AS<number>` a line, a `#` comment after it or on a line of its own. */
export const SOURCE_URL =
  'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt';

/**
 * Networks never listed, whatever the source says: those through which people browse — Apple's
 * iCloud Private Relay leaves through Akamai (36183), Cloudflare (13335) and Fastly (54113),
 * Cloudflare's WARP through 13335 and 209242 — and 395747, the network of the placeholder
 * `request.cf` that wrangler gives a local run (`npm run dev`, the tests).
 */
export const PEOPLE_NETWORKS: ReadonlySet<number> = new Set([13335, 36183, 54113, 209242, 395747]);

/** Fewer networks than this is not the list (it holds about 900). */
const FEWEST = 100;

/** The ASNs of the list's text, in its order: `AS123 # name`, `# comment` and blank lines. */
export function parseAsnList(text: string): number[] {
  const asns: number[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const asn = /^AS(\d{1,10})$/i.exec(line)?.[1];
    if (asn === undefined || Number(asn) > 4_294_967_295)
      throw new Error(`line ${i + 1} of the data-centre list is not an ASN: ${raw}`);
    asns.push(Number(asn));
  }
  return asns;
}

/** The generated file's text for the list's text, as of `date`. */
export function datacentersText(list: string, date: string): string {
  const parsed = [...new Set(parseAsnList(list))];
  if (parsed.length < FEWEST)
    throw new Error(`the data-centre list holds ${parsed.length} networks: not the real one?`);
  const kept = parsed.filter((asn) => !PEOPLE_NETWORKS.has(asn));
  return [
    `// Hosting and cloud networks: the ${kept.length} autonomous systems of X4B's data-centre list`,
    `// (lists_vpn, input/datacenter/ASN.txt, as of ${date}; MIT, copyright X4B (Mathew Heard),`,
    '// https://github.com/X4BNet/lists_vpn) less the networks people browse through',
    '// (`PEOPLE_NETWORKS`, scripts/build-datacenters.ts).',
    '// Written by `npm run build:datacenters`; do not edit.',
    '/** The sorted ASNs, each as its difference from the one before (`decodeAsns`). */',
    // On a line of its own, as the formatter (biome) writes a long string.
    'export const DATACENTER_ASNS =',
    `  '${encodeAsns(kept)}';`,
    '',
  ].join('\n');
}

/** The value of a `--name value` argument. */
function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const from = argument('--from');
  const date = argument('--as-of') ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error('--as-of takes a date: YYYY-MM-DD');
  let list: string;
  if (from) list = readFileSync(from, 'utf8');
  else {
    const res = await fetch(SOURCE_URL);
    if (!res.ok) throw new Error(`${SOURCE_URL} answered ${res.status}`);
    list = await res.text();
  }
  const text = datacentersText(list, date);
  writeFileSync(DATACENTERS_FILE, text);
  console.log(`Wrote src/ingest/steps/datacenters.generated.ts (${text.length} bytes).`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
