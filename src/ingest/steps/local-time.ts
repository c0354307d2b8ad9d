/** The website-local date (`YYYY-MM-DD`) and hour (`00`–`23`) of an instant. */
const formatters = new Map<string, Intl.DateTimeFormat>();

export function localDateHour(epochMs: number, timeZone: string): { date: string; hour: string } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour ?? '00' };
}
