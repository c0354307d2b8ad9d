/**
 * The human-readable API reference at `/api/v1/docs`, rendered on the server from the same
 * OpenAPI document as `/api/v1/openapi.json`: the texts' inline Markdown as HTML (`inline`),
 * a table of contents that stays in view beside the sections, and a search box that keeps
 * the sections (and their entries in the contents) whose text holds what is typed — the
 * dashboard's script (../assets/page-script.ts) shows and runs it; without it, the contents
 * are a plain list of links. No external CDN.
 */
import { raw } from 'hono/html';
import type { Child, FC } from 'hono/jsx';
import type { OpenApiDocument } from '../../http/openapi.ts';
import { pageSecurityHeaders } from '../../http/security-headers.ts';
import { DIMENSIONS, METRICS } from '../../query/parse/v2/question.ts';
import { assetUrls } from '../assets/serve.ts';

type Document = OpenApiDocument;
type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  example?: unknown;
  maxLength?: number;
  minimum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  anyOf?: Schema[];
  /** A described use of a named schema: its reference, then the words. */
  allOf?: Schema[];
};
type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  description?: string;
};
type MediaType = {
  schema?: Schema;
  examples?: Record<string, { summary?: string; value?: unknown }>;
};
type Operation = {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Where a link of a text may go: the web, or this server. */
const LINKABLE = /^(https?:\/\/|\/|#)/;

/**
 * A text's inline Markdown — what the API's descriptions use: `code` spans and
 * [links](https://…) — as HTML; the rest as text (escaped).
 */
function inline(text: string): Child[] {
  const parts: Child[] = [];
  let at = 0;
  for (const m of text.matchAll(/`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g)) {
    const [whole, code, label, href] = m;
    if (href !== undefined && !LINKABLE.test(href)) continue;
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push(code !== undefined ? <code>{code}</code> : <a href={href}>{label}</a>);
    at = m.index + whole.length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

function resolve(doc: Document, schema: Schema | undefined): Schema {
  if (schema?.allOf) {
    const [named, ...words] = schema.allOf;
    return Object.assign({}, resolve(doc, named), ...words);
  }
  if (!schema?.$ref) return schema ?? {};
  const name = schema.$ref.split('/').pop() ?? '';
  return (doc.components?.schemas?.[name] as Schema | undefined) ?? {};
}

function typeOf(doc: Document, schema: Schema | undefined): string {
  const s = resolve(doc, schema);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map((x) => typeOf(doc, x)).join(' | ');
  if (s.type === 'array') return `${typeOf(doc, s.items)}[]`;
  const name = (schema?.$ref ?? schema?.allOf?.[0]?.$ref)?.split('/').pop();
  return name ?? (Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any'));
}

function exampleOf(doc: Document, schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (s.example !== undefined) return s.example;
  if (depth > 4) return null;
  if (s.properties) {
    return Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [k, exampleOf(doc, v, depth + 1)]),
    );
  }
  if (s.type === 'array') return [exampleOf(doc, s.items, depth + 1)];
  if (s.enum) return s.enum[0];
  if (s.anyOf) return exampleOf(doc, s.anyOf[0], depth + 1);
  if (s.type === 'integer' || s.type === 'number') return 0;
  if (s.type === 'boolean') return true;
  return s.type === 'string' ? '' : null;
}

/** One named field of a table: its name, marked when required, then its other cells. */
type FieldRow = { name: string; required: boolean | undefined; cells: Child[] };

/** A table of named fields, a body's or an operation's parameters. */
const FieldTable: FC<{ nameHeader: string; headers: string[]; rows: FieldRow[] }> = ({
  nameHeader,
  headers,
  rows,
}) => (
  <table>
    <thead>
      <tr>
        <th scope="col">{nameHeader}</th>
        {headers.map((header) => (
          <th scope="col">{header}</th>
        ))}
      </tr>
    </thead>
    <tbody>
      {rows.map((row) => (
        <tr>
          <td>
            <code>{row.name}</code>
            {row.required ? <span class="req"> required</span> : null}
          </td>
          {row.cells.map((cell) => (
            <td>{cell}</td>
          ))}
        </tr>
      ))}
    </tbody>
  </table>
);

const Fields: FC<{ doc: Document; schema: Schema | undefined }> = ({ doc, schema }) => {
  const s = resolve(doc, schema);
  const required = new Set(s.required ?? []);
  return (
    <FieldTable
      nameHeader="Field"
      headers={['Type', 'Description']}
      rows={Object.entries(s.properties ?? {}).map(([name, prop]) => ({
        name,
        required: required.has(name),
        cells: [<code>{typeOf(doc, prop)}</code>, inline(resolve(doc, prop).description ?? '')],
      }))}
    />
  );
};

const Parameters: FC<{ doc: Document; parameters: Parameter[] }> = ({ doc, parameters }) => (
  <>
    <h3>Parameters</h3>
    <FieldTable
      nameHeader="Name"
      headers={['In', 'Type', 'Description']}
      rows={parameters.map((p) => ({
        name: p.name,
        required: p.required,
        cells: [
          p.in,
          <code>{typeOf(doc, p.schema)}</code>,
          inline(p.description ?? resolve(doc, p.schema).description ?? ''),
        ],
      }))}
    />
  </>
);

/** Each response of an operation: its examples, or one made from its schema. */
const Responses: FC<{ doc: Document; op: Operation }> = ({ doc, op }) => (
  <>
    <h3>Responses</h3>
    <dl>
      {Object.entries(op.responses ?? {}).map(([status, response]) => (
        <>
          <dt>
            <code>{status}</code> {inline(response.description ?? '')}
          </dt>
          <dd>
            {Object.entries(response.content?.['application/json']?.examples ?? {}).map(
              ([name, example]) => (
                <>
                  <p>Example: {example.summary ?? name}</p>
                  <pre tabindex={0}>{JSON.stringify(example.value, null, 2)}</pre>
                </>
              ),
            )}
            {response.content?.['application/json']?.examples ? null : (
              // A block wider than the screen scrolls: the keyboard reaches it too.
              <pre tabindex={0}>
                {JSON.stringify(
                  exampleOf(doc, response.content?.['application/json']?.schema),
                  null,
                  2,
                )}
              </pre>
            )}
          </dd>
        </>
      ))}
    </dl>
  </>
);

/** An operation's section id (and its entry's link in the contents). */
const idOf = (method: string, path: string) => `${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`;

const OperationView: FC<{ doc: Document; path: string; method: string; op: Operation }> = ({
  doc,
  path,
  method,
  op,
}) => {
  const id = idOf(method, path);
  const body = op.requestBody?.content
    ? Object.values(op.requestBody.content)[0]?.schema
    : undefined;
  return (
    <section id={id}>
      <h2>
        <span class={`method ${method}`}>{method.toUpperCase()}</span> <code>/api/v1{path}</code>
      </h2>
      {op.summary ? <p class="summary">{inline(op.summary)}</p> : null}
      {op.description ? <p>{inline(op.description)}</p> : null}
      {op.parameters?.length ? <Parameters doc={doc} parameters={op.parameters} /> : null}
      {body ? (
        <>
          <h3>Body</h3>
          <p>
            Sent as <code>{Object.keys(op.requestBody?.content ?? {}).join(', ')}</code>.
          </p>
          <Fields doc={doc} schema={body} />
        </>
      ) : null}
      <Responses doc={doc} op={op} />
    </section>
  );
};

const V2_EXAMPLE = {
  site_id: 'example.com',
  metrics: ['visitors', 'visits', 'bounce_rate'],
  date_range: '30d',
  dimensions: ['visit:source'],
  filters: [['is_not', 'visit:country_name', ['']]],
};

/** `POST /api/v2/query`: Plausible's Stats API v2 (its lists from the code that checks them). */
const StatsApiV2: FC = () => (
  <section id="post-v2-query">
    <h2>
      <span class="method post">POST</span> <code>/api/v2/query</code>
    </h2>
    <p class="summary">Plausible's Stats API v2</p>
    <p>
      The request and the answer of Plausible's Stats API v2 (plausible.io/docs/stats-api):{' '}
      <code>site_id</code> is the website's domain, the Bearer key a Sightline API key. Answers are{' '}
      <code>{'{"results": [{"metrics": […], "dimensions": […]}], "meta": {…}, "query": {…}}'}</code>
      ; errors <code>{'{"error": "…"}'}</code> (400 for a malformed question, 401 for a missing key
      or a domain the key does not own, 429 over the rate limits). Where Sightline counts
      differently from Plausible is in the README.
    </p>
    <h3>Metrics</h3>
    <p>
      {METRICS.map((m) => (
        <code>{m} </code>
      ))}
    </p>
    <h3>Dimensions (up to three)</h3>
    <p>
      {DIMENSIONS.map((d) => (
        <code>{d} </code>
      ))}
      <code>event:props:&lt;name&gt;</code> (a custom property; <code>(none)</code> without it)
    </p>
    <h3>Filters</h3>
    <p>
      <code>[operator, dimension, [values…], {'{"case_sensitive": false}'}?]</code> with{' '}
      <code>is is_not contains contains_not matches matches_not</code> (RE2 patterns), joined by{' '}
      <code>and</code>, <code>or</code>, <code>not</code>; <code>has_done</code> and{' '}
      <code>has_not_done</code> keep the visits that had (or had not) a hit the inner filter keeps.
    </p>
    <h3>Date ranges</h3>
    <p>
      <code>day 24h 7d 28d 30d 91d month 6mo 12mo year all</code>, a pair of dates or of date-times
      with offsets, in the website's time zone.
    </p>
    <h3>Example</h3>
    <pre tabindex={0}>{JSON.stringify(V2_EXAMPLE, null, 2)}</pre>
  </section>
);

// No angle brackets, ampersands or quotation marks: the page escapes them inside its style
// element, and the policy allows the style by the hash of its text.
const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#5b6470;--line:#d8dee4;--code:#f3f5f7;--accent:#2563eb}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#111418;--muted:#9aa4ae;--line:#2c333b;--code:#1b2026;--accent:#7aa2ff}}
body{font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:78rem;padding:1rem}
.layout{display:grid;grid-template-columns:minmax(0,1fr);gap:2rem}.layout main,.layout nav{min-width:0}@media (min-width:60rem){.layout{grid-template-columns:17rem minmax(0,1fr)}
.contents{position:sticky;top:0;max-height:100vh;overflow-y:auto;padding-top:1rem}}
.contents ul{list-style:none;padding:0;margin:0;font-size:.9rem}.contents li{margin:.3rem 0}
.contents input{width:100%;box-sizing:border-box;font:inherit;padding:.35rem .5rem;margin:.25rem 0 .5rem;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:6px}
.contents .none{color:var(--muted);font-size:.9rem}
h1{margin-bottom:.25rem}h2{border-top:1px solid var(--line);padding-top:1.5rem;font-size:1.2rem}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:var(--code);padding:.75rem;overflow:auto;border-radius:6px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;border-bottom:1px solid var(--line);padding:.35rem .5rem;vertical-align:top}
.method{display:inline-block;min-width:4.5rem;font-size:.8rem;padding:.1rem .4rem;border-radius:4px;background:var(--accent);color:var(--bg);text-align:center}
.req{color:var(--muted);font-size:.8em}.summary{font-weight:600}a{color:var(--accent)}
body{overflow-wrap:break-word}a,h2 code,header code{overflow-wrap:anywhere}@media (max-width:40rem){table{display:block;overflow-x:auto}td,td code{overflow-wrap:anywhere}}
`;

/** The pages' security headers, with this page's one inline style allowed by its hash. */
export const referencePageHeaders = () => pageSecurityHeaders({ inlineStyles: [STYLE] });

export const ReferencePage: FC<{ doc: Document }> = async ({ doc }) => {
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = (item as Record<string, Operation | undefined>)[method];
      return op ? [{ path, method, op }] : [];
    }),
  );
  const { js } = await assetUrls();
  // Without a doctype browsers render in quirks mode.
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{doc.info.title} reference</title>
          <style>{STYLE}</style>
          <script src={js} defer />
        </head>
        <body>
          <header>
            <h1>{doc.info.title}</h1>
            <p>{inline(doc.info.description ?? '')}</p>
            <p>
              Base URL <code>{doc.servers?.[0]?.url}</code>. Every request needs{' '}
              <code>Authorization: Bearer &lt;API key&gt;</code>. Errors are JSON:{' '}
              <code>{'{"message": "…", "status": 401}'}</code>; validation errors add{' '}
              <code>errors</code> per field. Machine-readable:{' '}
              <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).
            </p>
          </header>
          <div class="layout">
            <nav class="contents" aria-label="Contents">
              <label hidden data-search-sections="main > section">
                Search the reference
                <input type="search" autocomplete="off" />
              </label>
              <ul>
                {operations.map(({ path, method, op }) => (
                  <li>
                    <a href={`#${idOf(method, path)}`}>
                      {method.toUpperCase()} {path}
                    </a>{' '}
                    — {inline(op.summary ?? '')}
                  </li>
                ))}
                <li>
                  <a href="#post-v2-query">POST /api/v2/query</a> — Plausible's Stats API v2
                </li>
              </ul>
              <p class="none" role="status" hidden>
                No section holds that.
              </p>
            </nav>
            <main>
              {operations.map(({ path, method, op }) => (
                <OperationView doc={doc} path={path} method={method} op={op} />
              ))}
              <StatsApiV2 />
            </main>
          </div>
        </body>
      </html>
    </>
  );
};
