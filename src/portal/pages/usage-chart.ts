import type { DayUsage } from '../../domain/esims/usage-days.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { data } from './money-view.js';

// Data used per day as a small SVG bar chart, drawn on the server: no script, and no inline
// style (the portal's Content-Security-Policy allows none), only SVG geometry. Each bar carries
// its day and figure as a tooltip (<title>) and in data attributes; the figure beside the chart
// says the total, and the chart's label says the period and the busiest day.

const WIDTH = 300;
const HEIGHT = 80;
const GAP = 2;

function shortDay(day: string): string {
  const months = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ];
  return `${Number(day.slice(8, 10))} ${months[Number(day.slice(5, 7)) - 1] ?? ''}`;
}

/** A bar per day, as tall as its share of the busiest day; days without use show a baseline. */
export function usageChart(days: readonly DayUsage[], label: string, testId: string): SafeHtml {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return html``;
  const peak = days.reduce((max, d) => Math.max(max, d.bytes), 0);
  const slot = WIDTH / days.length;
  const bars = days.map((d, i) => {
    const h = peak === 0 || d.bytes === 0 ? 1 : Math.max(2, Math.round((d.bytes / peak) * HEIGHT));
    const x = Math.round(i * slot * 10) / 10;
    const w = Math.max(1, Math.round((slot - GAP) * 10) / 10);
    return html`<rect
      x="${x}"
      y="${HEIGHT - h}"
      width="${w}"
      height="${h}"
      class="${d.bytes === 0 ? 'bar none' : 'bar'}"
      data-day="${d.day}"
      data-bytes="${d.bytes}"
      ><title>${shortDay(d.day)}: ${data(d.bytes)}</title></rect
    >`;
  });
  const busiest = days.reduce((best, d) => (d.bytes > best.bytes ? d : best), first);
  const summary =
    peak === 0
      ? `${label}, ${shortDay(first.day)} to ${shortDay(last.day)}: no data used`
      : `${label}, ${shortDay(first.day)} to ${shortDay(last.day)}: most on ${shortDay(busiest.day)}, ${data(busiest.bytes)}`;
  return html`<figure class="usage-chart" data-testid="${testId}">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-label="${summary}"
      preserveAspectRatio="none"
    >
      ${bars}
    </svg>
    <figcaption><span>${shortDay(first.day)}</span><span>${shortDay(last.day)}</span></figcaption>
  </figure>`;
}
