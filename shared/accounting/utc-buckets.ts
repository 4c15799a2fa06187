/** The UTC day (`YYYY-MM-DD`) and minute (`YYYY-MM-DDTHH:MM`) buckets that allowances and rate windows count in. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function utcMinute(date: Date): string {
  return date.toISOString().slice(0, 16);
}
