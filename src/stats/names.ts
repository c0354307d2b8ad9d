/** The statistics Sightline records (docs/ARCHITECTURE.md, The counting model) and the API serves. */
export const STAT_NAMES = [
  'pageviews',
  'pageviews_hours',
  'visitors',
  'visitors_hours',
  'page',
  'landing_page',
  'referrer',
  'campaign',
  'continent',
  'country',
  'city',
  'language',
  'browser',
  'os',
  'device',
  'resolution',
  'event',
  'visits',
  'visits_hours',
  'bounces',
  'visit_duration',
  'exit_page',
] as const;

export type StatName = (typeof STAT_NAMES)[number];

/**
 * The statistics whose values are times: a date of the range (`pageviews`, `visitors`,
 * `visits`, `bounces`, `visit_duration`) or an hour `00`–`23` (`…_hours`). They have at most
 * one value per date or hour, so a page of them is worked out from all their rows.
 */
export const TIME_VALUED: ReadonlySet<StatName> = new Set([
  'pageviews',
  'visitors',
  'visits',
  'bounces',
  'visit_duration',
  'pageviews_hours',
  'visitors_hours',
  'visits_hours',
]);
