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
