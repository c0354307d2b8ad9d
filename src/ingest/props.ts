/**
 * A hit's custom properties (docs/ARCHITECTURE.md, "Custom properties"): names and values a
 * tracker sends with a page view or an event — Sightline's and Plausible's `props`, Umami's
 * `data` — kept as sent, within Plausible's limits: the first `MAX_PROPS` with a value, each
 * name cut to `MAX_PROP_NAME` characters and each value to `MAX_PROP_VALUE`. A value is a
 * string, a finite number or a boolean (as text); others (null, objects, lists) and empty
 * names or values are left out.
 */

import { MAX_PROP_NAME, MAX_PROP_VALUE, MAX_PROPS } from '../counting/query-dimensions.ts';

/** `text` cut to `max` characters (code points: a character is never split). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** The properties of an object a tracker sent, in its order. */
export function propsFrom(sent: Record<string, unknown>): [name: string, value: string][] {
  const props: [string, string][] = [];
  for (const [name, value] of Object.entries(sent)) {
    if (props.length === MAX_PROPS) break;
    const text = asText(value);
    if (name === '' || text === null || text === '') continue;
    props.push([cut(name, MAX_PROP_NAME), cut(text, MAX_PROP_VALUE)]);
  }
  return props;
}
