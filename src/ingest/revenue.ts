/**
 * A custom event's revenue (docs/ARCHITECTURE.md, "Goals"): `{amount, currency}` as
 * Sightline's tracker, Plausible's (`$` / `revenue`) and Umami's (`data.revenue`,
 * `data.currency`) send it — an amount (a number, or its text) and an ISO 4217 code. Kept in
 * millionths of the currency (an integer: sums are exact). As Plausible does, a revenue that
 * is not one (no currency, an amount that is no finite number, negative or above a trillion)
 * is left out and the event counted all the same.
 */
import { REVENUE_UNIT } from '../counting/query-metrics.ts';

const MAX_AMOUNT = 1e12;

export type Revenue = { amount: number; currency: string };

export function revenueFrom(sent: unknown): Revenue | null {
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return null;
  const { amount, currency } = sent as Record<string, unknown>;
  const value =
    typeof amount === 'number'
      ? amount
      : typeof amount === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(amount)
        ? Number(amount)
        : Number.NaN;
  const code = typeof currency === 'string' ? currency.trim().toUpperCase() : '';
  if (!Number.isFinite(value) || value < 0 || value > MAX_AMOUNT || !/^[A-Z]{3}$/.test(code))
    return null;
  return { amount: Math.round(value * REVENUE_UNIT), currency: code };
}
