// Known crawlers: the 239 of the 1500 patterns of crawler-user-agents 1.60.0 (MIT,
// https://github.com/monperrus/crawler-user-agents, copyright Martin Monperrus; its newest
// entry added 2026-08-06), with Sightline's names and kinds (scripts/build-crawlers.ts).
// Written by `npm run build:crawlers`; do not edit.
/**
 * The crawlers of each kind (`# kind` starts them; sorted, which packs best), one a line:
 * its pattern (case-sensitive, as the list writes it) and, after a tab, its name where
 * it is not the pattern's literal text (`literalName`).
 */
export const CRAWLER_LIST = String.raw`# ai_training
AI2Bot
Amazonbot
Bytespider
CCBot
FacebookBot
GPTBot
Google-Extended
PanguBot
[cC]laude[bB]ot	ClaudeBot
anthropic-ai
cohere-training-data-crawler
img2dataset
laion-huggingface-processor
meta-externalagent\/
# ai_search
Amzn-SearchBot
AzureAI-SearchBot
Claude-SearchBot
DuckAssistBot
OAI-SearchBot
PerplexityBot\/
PhindBot
TavilyBot
YouBot
meta-webindexer
# ai_agent
Amzn-User
ChatGPT-User
Claude-User
Claude-Web
Gemini-Deep-Research
Google-NotebookLM
Manus-User
MistralAI-User
Perplexity-User
cohere-ai
kagi-fetcher
meta-externalfetcher\/
# search_engine
360Spider
7Siters
A6-Indexer
AISearchBot
APIs-Google
Aboundex
AddSearchBot
Adidxbot
AlexandriaOrgBot
Algolia Crawler
AmazonProductDiscovery
AmazonSellerInitiatedListing
AppEngine-Google
Applebot
AspiegelBot
BIGLOTRON
Baiduspider
Bot\.AraTurka\.com
BraveBot
Cliqzbot\/
Coveobot
CyberFindCrawler
Daum\/
DeuSu\/
DuckDuckBot
DuckDuckGo-Favicons-Bot
FAST Enterprise Crawler
FAST-WebCrawler
FediIndex
FemtosearchBot
FindFiles\.net
Flamingo_SearchEngine
FleebsBot
Freespoke\/
Funnelback
FyndSearchEngine-Crawler
FyndSearchEngine-ReCrawler
Gabanzabot\/
GeedoBot
GeedoProductSearch
GeedoShopProductFinder
Gigablast
Gigabot
GlobalWebSearch
Gluten Free Crawler\/
Golfe\/
Google Favicon
Google-Certificates-Bridge
Google-CloudVertexBot
Google-InspectionTool
Google-PhysicalWeb
Google-Read-Aloud
Google-Safety
Google-Site-Verification
Google-Structured-Data-Testing-Tool
GoogleOther
GoogleProducer
Googlebot-IA\/
Googlebot-Image
Googlebot-Mobile
Googlebot-News
Googlebot-Video
Googlebot\/
Greppr Web Crawler
INETDEX-BOT
IbouBot
ImagesiftBot
IndeedBot
IndeedJobBot
IstellaBot
JobboerseBot
Jooblebot
Kagibot\/
KendraBot
Level9SearchBot\/
Linguee Bot
MagiBot
Mail\.RU_Bot
MatchorySearch
MojeekBot\/
NTENTbot
NapBot
NaverBot
Neevabot
NestDaddybot
Nicecrawler
Nutch
OICrawler
OpenHoseBot
OpenTheBoxBot
OrangeBot\/
Owler \(ows\.eu
PerplexityUser
PetalBot
PhxBot
PlayStore-Google
Qwantbot
Qwantify
SMTnetPMBot
SafeSearch microdata crawler
Scrubby
SearchExpress
Searcherweb
Searcherxweb
Seekport
SeznamBot
SeznamHomepageCrawler\/
SiteSearch360\/
Slurp
Sogou
Sosospider
StartpagePrivateImageProxy\/
Storebot-Google
StractBot
Swiftbot
Swisscows
Teoma
TheInternetSearchx
Timpibot
ToutiaoSpider
UsineNouvelleCrawler
VsuSearchSpider\/
WadooBot
WeSEE:Search
WepchSearchEngine
WikiDo
WordupInfoSearch
Y!J
YandexRenderResourcesBot\/
Yeti
YisouSpider
YoudaoBot
Zealbot
ZoomInfo-
ZumBot
ZyBorg
^Seekbot
acoonbot
aiHitBot
arabot
bingbot	Bingbot
blekkobot
br-crawler
coccoc
convera
daumoa
developers\.google\.com\/\+\/web\/snippet
discobot
edisterbot
exabot
findthatfile
findxbot
fiperbot
fluffy
fr-crawler
google-xrawler
grub\.org
gsa-crawler
iAskBot\/
ichiro
intelx\.io_bot
jobswithgptcom-bot
jyxobot
lb-spider
lyonl-asset-proxy
lyonl-crawler
msnbot
msrbot
officestorebot
openindexspider
psbot
purebot
scribdbot
search\.marginalia\.nu
speedy
stepstoneCrawlBot
tagoobot
top100\.rambler\.ru crawler
trovitBot
voilabot
wbsearchbot
wocbot
woriobot
wotbox
yacybot
yandex\.com\/bots	YandexBot
yanga
# seo
Ahrefs(Bot|SiteAudit)	AhrefsBot
BLEXBot\/
DataForSeoBot
MJ12bot
S[eE][mM]rushBot
Screaming Frog SEO Spider
dotbot	DotBot
rogerbot
serpstatbot\/
# monitor
Better Uptime Bot
Checkly
DatadogSynthetics
NewRelicSynthetics
StatusCake
UptimeRobot
[pP]ingdom	Pingdom`;
