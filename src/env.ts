/** Bindings and variables the Worker receives (see wrangler.toml). */
export interface Env {
  DB: D1Database;
  /** Static files the Worker reads itself: the Public Suffix List (src/websites/public-suffixes.ts). */
  ASSETS: Fetcher;
  /**
   * One event log per website: a Durable Object with SQLite storage (src/website-log/), reached
   * through `websiteLog` (src/website-log/worker/calls.ts), which knows its class.
   */
  WEBSITE_LOG: DurableObjectNamespace;
  /**
   * The Parquet Worker (src/parquet/, its own wrangler.parquet.toml): encodes the event log's
   * NDJSON export as Parquet (src/website-log/worker/calls.ts, `exportLog`).
   */
  PARQUET: Fetcher;
  /** `on` (set by `npm run dev` and `npm run screenshots`, never in wrangler.toml) enables `POST /__replay` for localhost (src/ingest/replay.ts). */
  REPLAY?: string;
  /** `on` (set by `npm run dev`, never in wrangler.toml): `localhost` may be added as a website (src/websites/service.ts). */
  DEVELOPMENT?: string;
  /**
   * Events past which the open partition of a website's log closes at the next local date,
   * and a new one begins (src/website-log/object/partition.ts); unset: one partition.
   */
  LOG_PARTITION_EVENTS?: string;
  /** Days a website's log keeps its events (after they are rolled up); unset keeps all. */
  EVENT_RETENTION_DAYS?: string;
  /**
   * The owner's R2 bucket of the daily archive (src/archive/, docs/ARCHIVE.md): each closed
   * date of each website as Parquet. Unset: no archive.
   */
  ARCHIVE?: R2Bucket;
  /** `open` lets anyone sign up on the web; anything else only the first owner. */
  REGISTRATION?: string;
  /** Cloudflare's `send_email` binding, for periodic reports. */
  EMAIL?: SendEmail;
  /** Sender of the reports, e.g. `reports@example.com` (a verified address of the zone). */
  MAIL_FROM?: string;
  /** Where this Sightline is served, for links in e-mails (a cron has no request URL). */
  PUBLIC_URL?: string;
  /** `weekly` (default, Monday to Sunday) or `monthly`. */
  REPORT_INTERVAL?: string;
  /** Rate limits (see src/lib/rate-limit.ts); a missing binding means no limit. */
  RATE_LIMIT_ADDRESSES?: RateLimit;
  RATE_LIMIT_EVENTS?: RateLimit;
  RATE_LIMIT_API?: RateLimit;
  RATE_LIMIT_FORMS?: RateLimit;
  RATE_LIMIT_READS?: RateLimit;
  RATE_LIMIT_PUBLIC_READS?: RateLimit;
  RATE_LIMIT_WEBSITE_READS?: RateLimit;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** The owner authenticated by the API key of this request. */
    ownerId: number;
    /** The signed-in owner of a page request (null when signed out). */
    owner: { id: number; email: string } | null;
    /** The session token of a signed-in page request. */
    sessionToken: string | null;
    /**
     * The address a statistics page's links start at when it is not `/stats/{domain}`: a
     * shared link's `/share/{id}`, or `/embed/{id}` (framed by any page).
     */
    statsBase?: string;
    /** A shared link's embed (`/embed`, `/embed/{id}`): shown without the header, framed by any page. */
    embedded?: boolean;
    /**
     * The saved segment a shared link is limited to (its id, name and filters as saved): every
     * number of its pages is of it.
     */
    linkSegment?: { id: number; name: string; filters: string };
    /** On a statistics page, the reader when they are the website's owner or a member. */
    teamReader?: { id: number; admin: boolean };
  };
};
