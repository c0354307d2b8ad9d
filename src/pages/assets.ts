/**
 * The dashboard's stylesheet and its one small script, served by the Worker itself (no CDN)
 * under content-hashed URLs, so they can be cached for a year. Inline styles and scripts are
 * not used at all: the Content-Security-Policy allows only these files.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

const CSS = `
:root{color-scheme:light dark;--fg:#17191c;--bg:#fff;--muted:#5d6670;--line:#dde2e7;--card:#f6f8fa;--accent:#2457d6;--accent-fg:#fff;--bad:#b42318;--good:#067647}
@media (prefers-color-scheme:dark){:root{--fg:#e7e9ec;--bg:#101317;--muted:#9aa4ae;--line:#2b323a;--card:#171b21;--accent:#7ea2ff;--accent-fg:#0b0d10;--bad:#ff8a80;--good:#6ee7a8}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;text-decoration:none;color:var(--fg)}header.top nav{display:flex;gap:1rem;align-items:center}
main{max-width:72rem;margin:0 auto;padding:1rem}h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
form.stack{display:grid;gap:.9rem;max-width:36rem}label{display:grid;gap:.25rem;font-weight:600}
input,select,textarea,button{font:inherit;color:inherit}input,select,textarea{font-weight:400;padding:.5rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);width:100%}
textarea{min-height:6rem;font-family:ui-monospace,monospace;font-size:.9rem}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}.check input{width:auto}
button,.button{display:inline-block;padding:.5rem .9rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad);color:var(--bg)}
.error{color:var(--bad);font-weight:400;font-size:.9rem}.hint{color:var(--muted);font-weight:400;font-size:.9rem}.notice{border-left:4px solid var(--good);padding:.5rem .75rem;background:var(--card)}.range-notice{border-left-color:var(--bad)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
pre,code{font-family:ui-monospace,monospace;font-size:.9rem}pre{background:var(--card);border:1px solid var(--line);padding:.75rem;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-all}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}.inline{display:inline}
.ranges,.chart-metrics{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.5rem 0}.ranges a[aria-current],.chart-metrics a[aria-current]{font-weight:700;text-decoration:none;color:var(--fg)}
.range-links{display:contents}.custom-range{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}.custom-range label{font-weight:400}.custom-range input{width:auto}
.totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:1rem}.totals h2{margin:0;font-size:1rem;color:var(--muted)}.totals h2 a{color:inherit}.totals .charted{border-color:var(--accent);box-shadow:inset 0 3px 0 var(--accent)}.totals .charted h2 a{text-decoration:none;color:var(--fg)}.big{font-size:2rem;font-weight:700;margin:.25rem 0}
.chart{margin:0 0 1rem}.chart svg{width:100%;height:auto;display:block}.chart polyline{fill:none;stroke-width:2.5;stroke-linejoin:round}.chart polyline.pageviews,.key.pageviews::before{stroke:var(--accent);background:var(--accent)}.chart polyline.visitors,.key.visitors::before{stroke:var(--good);background:var(--good)}
.chart .axis{stroke:var(--muted)}.chart .grid{stroke:var(--line);stroke-dasharray:2 3}.chart .tick{fill:var(--muted);font-size:12px}.chart .tick.end,.chart .val.end{text-anchor:end}.chart .tick.mid{text-anchor:middle}
.chart .hit{fill:transparent}.chart .pt circle{stroke:none}.chart .pt circle.pageviews{fill:var(--accent)}.chart .pt circle.visitors{fill:var(--good)}.chart .pt circle,.chart .pt .val{visibility:hidden}.chart .pt:hover circle,.chart .pt:focus circle,.chart .pt:hover .val,.chart .pt:focus .val{visibility:visible}.chart .val{fill:var(--fg);font-size:13px;font-weight:600;paint-order:stroke;stroke:var(--bg);stroke-width:4px}.chart .pt:focus{outline:none}.chart .pt:focus .hit{fill:var(--line);opacity:.5}.key::before{content:'';display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.35rem;vertical-align:-1px}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,28rem),1fr));gap:1rem}.panel h2{margin-top:0}.panel td:first-child{overflow-wrap:anywhere}.live{color:var(--muted)}.search input[type=search]{max-width:20rem}.search select{width:auto}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.5rem 0 1rem}.chips{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;margin:0;padding:0}.chip{display:flex;gap:.5rem;align-items:center;border:1px solid var(--line);background:var(--card);border-radius:999px;padding:.2rem .4rem .2rem .75rem}.chip a{text-decoration:none;font-weight:700;padding:0 .35rem}
.filter-link{color:inherit;text-decoration:none}.filter-link:hover{text-decoration:underline;color:var(--accent)}.open-link{text-decoration:none;font-size:.85rem}
svg.bar{display:block;width:100%;height:.5rem;margin-top:.3rem}svg.bar .track{fill:var(--line)}svg.bar .fill{fill:var(--accent)}
.panel-head{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline;justify-content:space-between;margin-bottom:.5rem}.panel-head h2{margin:0}.tabs{display:flex;flex-wrap:wrap;gap:.1rem .8rem}.tabs a{color:var(--muted);text-decoration:none;font-size:.9rem;border-bottom:2px solid transparent}.tabs a:hover{color:var(--fg)}.tabs a[aria-selected=true],.tabs a[aria-current]{color:var(--fg);font-weight:600;border-bottom-color:var(--accent)}
.bar-cell{position:relative;z-index:0}svg.bar.behind{position:absolute;z-index:-1;left:0;top:.2rem;width:100%;height:calc(100% - .4rem);margin:0}svg.bar.behind .fill{fill:var(--accent);opacity:.15}th.share,td.share{color:var(--muted);width:4.5rem}.panel [role=tabpanel]{overflow-x:auto}td.num,th.num{white-space:nowrap}
.chart polyline.previous{stroke-dasharray:3 5;opacity:.6;stroke-width:2}.key.previous::before{background:none;border-top:2px dotted var(--muted);height:0;vertical-align:4px}.chart-metrics .compare{margin-left:auto}
dialog{border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg);max-width:24rem}dialog::backdrop{background:rgb(0 0 0/.4)}dialog dl{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem}dialog dd{margin:0}kbd{font-family:ui-monospace,monospace;border:1px solid var(--line);border-radius:4px;padding:0 .4rem;background:var(--card)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
@media (max-width:40rem){main{padding:.75rem}.range-links{display:flex;gap:1rem;overflow-x:auto;white-space:nowrap;max-width:100%;padding:.25rem 0}.totals{grid-template-columns:repeat(3,1fr);gap:.5rem}.totals .card{padding:.6rem;margin:0}.totals h2{font-size:.85rem}.big{font-size:1.4rem}.totals .hint{font-size:.75rem}.card{padding:.75rem}}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;

/**
 * Copy buttons, an import's upload progress, the statistics page's keyboard shortcuts (a key
 * per range, `x` compares, `?` lists them; the arrow keys move between the chart's points and
 * a group's tabs), its tabs switched in place, its realtime figure asked for again every
 * 30 seconds while the page is shown, and the secret after a link's `#` put into its page's
 * form (./fragment-form.tsx): progressive enhancement, everything works without it (the
 * upload is then a plain form post, a tab a link, the figure as of the page's load, the
 * secret pasted into the form's field).
 */
const JS = `document.addEventListener('click',function(e){var b=e.target.closest&&e.target.closest('[data-copy]');if(!b)return;var t=document.getElementById(b.getAttribute('data-copy'));if(t&&navigator.clipboard){navigator.clipboard.writeText(t.textContent).then(function(){b.textContent='Copied'})}});
document.addEventListener('submit',function(e){var f=e.target;if(!f.hasAttribute||!f.hasAttribute('data-upload')||!window.FormData)return;e.preventDefault();var p=f.querySelector('progress'),b=f.querySelector('button[type=submit]'),x=new XMLHttpRequest();x.open('POST',f.action);x.upload.onprogress=function(v){if(v.lengthComputable&&p){p.hidden=false;p.value=Math.round(v.loaded/v.total*100);p.textContent=p.value+'%'}};x.upload.onload=function(){if(b)b.textContent='Counting the imported rows…'};x.onload=function(){if(x.status<300&&x.responseURL){location.href=x.responseURL+'#imports'}else{document.open();document.write(x.responseText);document.close()}};x.onerror=function(){f.submit()};if(b){b.disabled=true;b.textContent='Uploading…'}x.send(new FormData(f))});
document.addEventListener('keydown',function(e){if(e.ctrlKey||e.metaKey||e.altKey||e.defaultPrevented)return;var t=e.target;if(t&&(t.isContentEditable||/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))return;var d=document.getElementById('shortcuts');if(e.key==='?'&&d&&d.showModal){e.preventDefault();if(!d.open)d.showModal();return}if(e.key.length!==1)return;var k=document.querySelector('[data-key="'+e.key.toLowerCase()+'"]');if(!k)return;e.preventDefault();if(k.tagName==='A')location.href=k.href;else k.focus()});
document.addEventListener('keydown',function(e){var p=e.target;if(!p.classList||!p.classList.contains('pt'))return;var n=e.key==='ArrowRight'?p.nextElementSibling:e.key==='ArrowLeft'?p.previousElementSibling:null;if(!n||!n.classList.contains('pt'))return;e.preventDefault();p.setAttribute('tabindex','-1');n.setAttribute('tabindex','0');n.focus()});
function selectTab(t,focus){var l=t.parentNode,g=t.closest('section').id,v=new URL(t.href).searchParams.get(g);[].forEach.call(l.querySelectorAll('[role=tab]'),function(o){var p=document.getElementById(o.getAttribute('aria-controls'));o.setAttribute('aria-selected',o===t?'true':'false');if(p)p.hidden=o!==t});if(history.replaceState)history.replaceState(null,'',t.href);
[].forEach.call(document.querySelectorAll('a[href]:not([role=tab])'),function(a){var u=new URL(a.href);if(u.pathname!==location.pathname)return;if(v)u.searchParams.set(g,v);else u.searchParams.delete(g);a.href=u.href});
[].forEach.call(document.querySelectorAll('form[method=get]'),function(f){if(new URL(f.action).pathname!==location.pathname)return;var i=f.querySelector('input[type=hidden][name="'+g+'"]');if(!v){if(i)i.remove();return}if(!i){i=document.createElement('input');i.type='hidden';i.name=g;f.appendChild(i)}i.value=v});if(focus)t.focus()}
document.addEventListener('click',function(e){var t=e.target.closest&&e.target.closest('[role=tab]');if(!t||e.button||e.ctrlKey||e.metaKey||e.shiftKey||e.altKey)return;e.preventDefault();selectTab(t)});
document.addEventListener('keydown',function(e){var t=e.target;if(!t.getAttribute||t.getAttribute('role')!=='tab')return;var a=[].slice.call(t.parentNode.querySelectorAll('[role=tab]')),i=a.indexOf(t),n=e.key==='ArrowRight'?a[(i+1)%a.length]:e.key==='ArrowLeft'?a[(i+a.length-1)%a.length]:e.key==='Home'?a[0]:e.key==='End'?a[a.length-1]:null;if(!n)return;e.preventDefault();selectTab(n,true)});
(function(){var i=document.querySelector('[data-fragment]'),h=location.hash.slice(1);if(!i||!h)return;i.value=h;if(history.replaceState)history.replaceState(null,'',location.pathname+location.search);var l=i.closest('label');if(l)l.hidden=true;if(i.form.hasAttribute('data-auto'))i.form.submit()})();
(function(){var l=document.querySelector('[data-live]');if(!l||!window.fetch)return;setInterval(function(){if(document.hidden)return;fetch(l.getAttribute('data-live'),{credentials:'same-origin'}).then(function(r){return r.ok?r.json():null}).then(function(d){if(!d)return;var s=l.querySelector('strong'),u=l.querySelector('[data-unit]');if(s)s.textContent=d.formatted;if(u)u.textContent=d.visitors===1?'visitor':'visitors'}).catch(function(){})},30000)})();`;

async function version(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 6), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}

const versions = Promise.all([version(CSS), version(JS)]);

/** URLs of the current assets, for the layout. */
export async function assetUrls() {
  const [css, js] = await versions;
  return { css: `/assets/app.${css}.css`, js: `/assets/app.${js}.js` };
}

export function createAssetRoutes() {
  const assets = new Hono<AppEnv>();
  const serve =
    (body: string, type: string) =>
    (c: { body: (b: string) => Response; header: (k: string, v: string) => void }) => {
      c.header('Content-Type', type);
      c.header('Cache-Control', 'public, max-age=31536000, immutable');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(body);
    };
  assets.get('/:name{app\\.[0-9a-f]{12}\\.css}', serve(CSS, 'text/css; charset=utf-8'));
  assets.get('/:name{app\\.[0-9a-f]{12}\\.js}', serve(JS, 'text/javascript; charset=utf-8'));
  return assets;
}
