import { escapeHtml } from './html-escape';

export interface Bar {
  label: string;
  value: number;
  /** Shown at the end of the bar; the value itself when absent. */
  caption?: string;
}

const font = 'font-family="system-ui, sans-serif" font-size="12"';

/** Horizontal bars, one per row (the funnel): label on the left, bar scaled to the largest value. */
export function horizontalBars(bars: readonly Bar[], options: { width?: number; title: string }): string {
  const width = options.width ?? 640;
  const labelWidth = 140;
  const row = 26;
  const height = bars.length * row + 30;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plot = width - labelWidth - 90;
  const rows = bars.map((bar, i) => {
    const y = 24 + i * row;
    const w = Math.round((bar.value / max) * plot);
    return [
      `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end" ${font}>${escapeHtml(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y}" width="${w}" height="${row - 6}" fill="#3b82f6"/>`,
      `<text x="${labelWidth + w + 6}" y="${y + 14}" ${font}>${escapeHtml(bar.caption ?? bar.value)}</text>`,
    ].join('');
  });
  return svg(width, height, options.title, rows.join(''));
}

/** Vertical bars over days (daily revenue), with the value axis starting at 0. */
export function columnChart(
  bars: readonly Bar[],
  options: { width?: number; height?: number; title: string },
): string {
  const width = options.width ?? 640;
  const height = options.height ?? 260;
  const top = 24;
  const bottom = 40;
  const left = 10;
  const plotHeight = height - top - bottom;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const slot = bars.length > 0 ? (width - left * 2) / bars.length : 0;
  const columns = bars.map((bar, i) => {
    const h = Math.round((bar.value / max) * plotHeight);
    const x = left + i * slot + slot * 0.15;
    const w = Math.max(1, slot * 0.7);
    const y = top + plotHeight - h;
    return [
      `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${h}" fill="#10b981"><title>${escapeHtml(`${bar.label}: ${bar.caption ?? bar.value}`)}</title></rect>`,
      `<text x="${(x + w / 2).toFixed(1)}" y="${y - 4}" text-anchor="middle" ${font}>${escapeHtml(bar.caption ?? bar.value)}</text>`,
      `<text x="${(x + w / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle" ${font}>${escapeHtml(bar.label)}</text>`,
    ].join('');
  });
  const axis = `<line x1="${left}" y1="${top + plotHeight}" x2="${width - left}" y2="${top + plotHeight}" stroke="#999"/>`;
  const empty =
    bars.length === 0
      ? `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" ${font}>no data</text>`
      : '';
  return svg(width, height, options.title, axis + columns.join('') + empty);
}

function svg(width: number, height: number, title: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}">` +
    `<title>${escapeHtml(title)}</title>${body}</svg>`
  );
}
