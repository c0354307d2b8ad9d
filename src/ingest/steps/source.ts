/**
 * Where a visit came from, as Plausible's `visit:source` and `visit:channel` group it
 * (docs/ARCHITECTURE.md, "The counting model"): the source is a name people know ("Google",
 * "Hacker News") for a well-known referrer or `utm_source`, else the referrer's host or the
 * `utm_source` as sent; the channel is Google Analytics 4's default channel grouping, which
 * Plausible follows: from the source's kind and the visit's `utm_medium` and `utm_campaign`,
 * with Plausible's `AI Assistants` for the chat assistants that link to websites.
 * A visit with neither referrer nor `utm_source` has no source (shown as "Direct / None").
 * Both are worked out as a visit starts and stored with it: a change here applies to visits
 * from then on, and stored ones keep theirs.
 */

type Kind = 'search' | 'social' | 'video' | 'shopping' | 'email' | 'ai' | 'other';

/**
 * The chat assistants whose answers link to websites (the `AI Assistants` channel), named as
 * their makers name them, by the addresses people use them at (each its vendor's own). An
 * assistant's host is also a `utm_source` naming it: ChatGPT adds `utm_source=chatgpt.com` to
 * the links in its answers. An assistant served at a path of a search engine's or a social
 * network's host (Kagi's at kagi.com/assistant, Grok's at x.com/i/grok, Copilot's at
 * bing.com/chat) cannot be told from it, as only the host is sent, and counts as that site.
 */
const AI_ASSISTANTS: { name: string; hosts: string[]; ids: string[] }[] = [
  { name: 'ChatGPT', hosts: ['chatgpt.com', 'chat.openai.com'], ids: ['chatgpt'] },
  { name: 'Perplexity', hosts: ['perplexity.ai'], ids: ['perplexity'] },
  { name: 'Claude', hosts: ['claude.ai'], ids: ['claude'] },
  { name: 'Gemini', hosts: ['gemini.google.com', 'bard.google.com'], ids: ['gemini'] },
  {
    name: 'Microsoft Copilot',
    hosts: ['copilot.microsoft.com', 'copilot.cloud.microsoft'],
    ids: [],
  },
  { name: 'Le Chat', hosts: ['chat.mistral.ai'], ids: [] },
  { name: 'DeepSeek', hosts: ['chat.deepseek.com'], ids: ['deepseek'] },
  { name: 'Grok', hosts: ['grok.com'], ids: ['grok'] },
  { name: 'Meta AI', hosts: ['meta.ai'], ids: [] },
  { name: 'Poe', hosts: ['poe.com'], ids: [] },
  { name: 'Phind', hosts: ['phind.com'], ids: ['phind'] },
  { name: 'You.com', hosts: ['you.com'], ids: [] },
  { name: 'Qwen', hosts: ['chat.qwen.ai'], ids: [] },
  { name: 'Kimi', hosts: ['kimi.com', 'kimi.moonshot.cn'], ids: ['kimi'] },
  { name: 'Doubao', hosts: ['doubao.com'], ids: ['doubao'] },
].map((a) => ({ ...a, ids: [...a.ids, ...a.hosts] }));

/**
 * Well-known sources: a name, its kind, the hosts it refers from (a host matches itself and
 * its subdomains; `google.*` any Google country domain) and the `utm_source` values that name
 * it (lower case).
 */
const SOURCES: { name: string; kind: Kind; hosts: string[]; ids?: string[] }[] = [
  { name: 'Google', kind: 'search', hosts: ['google.*'], ids: ['google'] },
  { name: 'Bing', kind: 'search', hosts: ['bing.com'], ids: ['bing'] },
  { name: 'DuckDuckGo', kind: 'search', hosts: ['duckduckgo.com'], ids: ['duckduckgo', 'ddg'] },
  { name: 'Yahoo!', kind: 'search', hosts: ['search.yahoo.com', 'yahoo.com'], ids: ['yahoo'] },
  { name: 'Yandex', kind: 'search', hosts: ['yandex.ru', 'yandex.com', 'ya.ru'], ids: ['yandex'] },
  { name: 'Baidu', kind: 'search', hosts: ['baidu.com'], ids: ['baidu'] },
  { name: 'Ecosia', kind: 'search', hosts: ['ecosia.org'], ids: ['ecosia'] },
  { name: 'Brave', kind: 'search', hosts: ['search.brave.com'], ids: ['brave'] },
  { name: 'Qwant', kind: 'search', hosts: ['qwant.com'], ids: ['qwant'] },
  { name: 'Startpage', kind: 'search', hosts: ['startpage.com'], ids: ['startpage'] },
  { name: 'Kagi', kind: 'search', hosts: ['kagi.com'], ids: ['kagi'] },
  { name: 'Naver', kind: 'search', hosts: ['naver.com'], ids: ['naver'] },
  { name: 'Seznam', kind: 'search', hosts: ['seznam.cz'], ids: ['seznam'] },
  { name: 'Facebook', kind: 'social', hosts: ['facebook.com', 'fb.me'], ids: ['facebook', 'fb'] },
  { name: 'Instagram', kind: 'social', hosts: ['instagram.com'], ids: ['instagram', 'ig'] },
  {
    name: 'Twitter',
    kind: 'social',
    hosts: ['twitter.com', 't.co', 'x.com'],
    ids: ['twitter', 'x'],
  },
  { name: 'LinkedIn', kind: 'social', hosts: ['linkedin.com', 'lnkd.in'], ids: ['linkedin'] },
  { name: 'Reddit', kind: 'social', hosts: ['reddit.com', 'redd.it'], ids: ['reddit'] },
  {
    name: 'Hacker News',
    kind: 'social',
    hosts: ['news.ycombinator.com'],
    ids: ['hackernews', 'hn'],
  },
  { name: 'Pinterest', kind: 'social', hosts: ['pinterest.com', 'pin.it'], ids: ['pinterest'] },
  { name: 'TikTok', kind: 'social', hosts: ['tiktok.com'], ids: ['tiktok'] },
  { name: 'Threads', kind: 'social', hosts: ['threads.net'], ids: ['threads'] },
  { name: 'Bluesky', kind: 'social', hosts: ['bsky.app'], ids: ['bluesky', 'bsky'] },
  { name: 'Mastodon', kind: 'social', hosts: ['mastodon.social'], ids: ['mastodon'] },
  { name: 'VKontakte', kind: 'social', hosts: ['vk.com'], ids: ['vk'] },
  { name: 'Quora', kind: 'social', hosts: ['quora.com'], ids: ['quora'] },
  { name: 'Telegram', kind: 'social', hosts: ['t.me', 'telegram.org'], ids: ['telegram'] },
  { name: 'WhatsApp', kind: 'social', hosts: ['whatsapp.com', 'wa.me'], ids: ['whatsapp'] },
  { name: 'YouTube', kind: 'video', hosts: ['youtube.com', 'youtu.be'], ids: ['youtube', 'yt'] },
  { name: 'Vimeo', kind: 'video', hosts: ['vimeo.com'], ids: ['vimeo'] },
  { name: 'Twitch', kind: 'video', hosts: ['twitch.tv'], ids: ['twitch'] },
  { name: 'Amazon', kind: 'shopping', hosts: ['amazon.*'], ids: ['amazon'] },
  { name: 'eBay', kind: 'shopping', hosts: ['ebay.*'], ids: ['ebay'] },
  { name: 'Etsy', kind: 'shopping', hosts: ['etsy.com'], ids: ['etsy'] },
  { name: 'Gmail', kind: 'email', hosts: ['mail.google.com'], ids: ['gmail'] },
  {
    name: 'Outlook.com',
    kind: 'email',
    hosts: ['outlook.live.com', 'outlook.office.com', 'outlook.office365.com'],
    ids: ['outlook'],
  },
  { name: 'Yahoo! Mail', kind: 'email', hosts: ['mail.yahoo.com'], ids: ['yahoomail'] },
  ...AI_ASSISTANTS.map((s) => ({ ...s, kind: 'ai' as const })),
  { name: 'GitHub', kind: 'other', hosts: ['github.com'], ids: ['github'] },
  { name: 'Wikipedia', kind: 'other', hosts: ['wikipedia.org'], ids: ['wikipedia'] },
];

/** The well-known source a referrer host names (the most specific host wins), or undefined. */
function knownByHost(host: string) {
  const labels = host.replace(/^www\./, '').split('.');
  // From the longest suffix to the shortest: `mail.google.com` before `google.*`.
  for (let i = 0; i < labels.length - 1; i++) {
    const suffix = labels.slice(i).join('.');
    const wild = `${labels[i]}.*`;
    const found = SOURCES.find((s) => s.hosts.includes(suffix) || s.hosts.includes(wild));
    if (found) return found;
  }
  return undefined;
}

const knownById = (id: string) => SOURCES.find((s) => s.ids?.includes(id.toLowerCase()));

/** What the source and channel of a visit are worked out from, as its first page view sent it. */
export type Acquisition = {
  /** The external referrer's host ('' for none). */
  referrer: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
};

/** The visit's source: a known name, or the `utm_source` or referrer host as sent; '' for none. */
export function acquisitionSource(a: Acquisition): string {
  if (a.utmSource) return knownById(a.utmSource)?.name ?? a.utmSource;
  if (a.referrer) return knownByHost(a.referrer)?.name ?? a.referrer.replace(/^www\./, '');
  return '';
}

const PAID = /^(.*cp.*|ppc|retargeting|paid.*)$/;
const SHOPPING_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/;
const DISPLAY = new Set(['display', 'banner', 'expandable', 'interstitial', 'cpm']);
const SOCIAL = new Set([
  'social',
  'social-network',
  'social-media',
  'sm',
  'social network',
  'social media',
]);
const EMAIL = new Set(['email', 'e-mail', 'e_mail', 'e mail', 'newsletter']);

/** The visit's channel, by Google Analytics 4's default channel grouping (first rule that fits). */
export function channelOf(a: Acquisition): string {
  const medium = a.utmMedium?.toLowerCase() ?? '';
  const source = a.utmSource?.toLowerCase() ?? '';
  const campaign = a.utmCampaign?.toLowerCase() ?? '';
  const known = (a.utmSource && knownById(a.utmSource)) || (a.referrer && knownByHost(a.referrer));
  const kind = known ? known.kind : undefined;
  const paid = PAID.test(medium);
  const shopping = kind === 'shopping' || SHOPPING_CAMPAIGN.test(campaign);
  const rules: [boolean, string][] = [
    [campaign.includes('cross-network'), 'Cross-network'],
    [shopping && paid, 'Paid Shopping'],
    [kind === 'search' && paid, 'Paid Search'],
    [kind === 'social' && paid, 'Paid Social'],
    [kind === 'video' && paid, 'Paid Video'],
    [DISPLAY.has(medium), 'Display'],
    [paid, 'Paid Other'],
    [kind === 'ai', 'AI Assistants'],
    [shopping, 'Organic Shopping'],
    [kind === 'social' || SOCIAL.has(medium), 'Organic Social'],
    [kind === 'video' || medium.includes('video'), 'Organic Video'],
    [kind === 'search' || medium === 'organic', 'Organic Search'],
    [kind === 'email' || EMAIL.has(medium) || EMAIL.has(source), 'Email'],
    [medium === 'affiliate', 'Affiliates'],
    [medium === 'audio', 'Audio'],
    [medium === 'sms' || source === 'sms', 'SMS'],
    [
      medium.endsWith('push') || medium.includes('mobile') || medium.includes('notification'),
      'Mobile Push Notifications',
    ],
    [['referral', 'app', 'link'].includes(medium) || a.referrer !== '', 'Referral'],
    [!a.utmSource && !medium && !a.referrer, 'Direct'],
  ];
  return rules.find(([fits]) => fits)?.[1] ?? 'Unassigned';
}
