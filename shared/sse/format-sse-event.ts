/**
 * One server-sent event as text: the `event:` line when it has a name, then one `data:` line per line of the
 * data (a line break inside `data` would otherwise end the field), then the blank line that ends the event.
 * Every event the gateway writes itself goes through here.
 */
export function formatSseEvent(event: { event?: string | undefined; data: string }): string {
  const name = event.event === undefined ? '' : `event: ${event.event}\n`;
  if (!event.data.includes('\n')) return `${name}data: ${event.data}\n\n`;
  return `${name}${event.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('')}\n`;
}
