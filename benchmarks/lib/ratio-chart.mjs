// One small SVG chart per benchmark result: each table row that has a baseline, as a bar from the
// baseline (1×) to its ratio on a log-2 scale, so 0.5× and 2× are equally long. Plain SVG text, no
// dependency; the output depends only on the rows, so a result renders to the same bytes every time
// (test/integration/benchmarks/benchmark-table.test.ts compares the committed charts with it).

const WIDTH = 800;
const LABEL_RIGHT = 452;
const PLOT_LEFT = 470;
const PLOT_RIGHT = 710;
const TOP = 44;
const ROW = 24;
const BAR = 14;
const BOTTOM = 34;
const MAX_LABEL = 72;
/** The scale ends at 2^±MAX_DOUBLINGS (128×); a longer bar is clipped and says so with its label. */
const MAX_DOUBLINGS = 7;
const ABOVE = '#c8642c';
const BELOW = '#2c6fc8';

/** `text` safe inside an XML element or a double-quoted attribute. */
export function xmlText(text) {
  return String(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** A number as the chart prints it: at most 2 decimals, no trailing zeros. */
function figure(value) {
  return String(Math.round(value * 100) / 100);
}

/**
 * `metric` short enough for the label column: without its parenthesised remarks (the full text is
 * the bar's tooltip), then cut at the end.
 */
function shortLabel(metric) {
  if (metric.length <= MAX_LABEL) return metric;
  let short = metric;
  for (let previous = ''; previous !== short; ) {
    previous = short;
    short = short.replace(/\s*\([^()]*\)/g, '');
  }
  return short.length > MAX_LABEL ? `${short.slice(0, MAX_LABEL - 1)}…` : short;
}

/** The rows of `table` that compare a figure with a baseline: a positive finite numeric ratio. */
export function comparedRows(table) {
  return table.filter((row) => typeof row.ratio === 'number' && Number.isFinite(row.ratio) && row.ratio > 0 && row.baseline !== undefined && row.baseline !== null);
}

/**
 * The SVG chart of `rows` (table rows of one result) titled `title`, or `undefined` when no row has
 * a baseline to compare with.
 */
export function ratioChart({ title, rows }) {
  const compared = comparedRows(rows);
  if (compared.length === 0) return undefined;
  const doublings = Math.min(MAX_DOUBLINGS, Math.max(1, ...compared.map((row) => Math.ceil(Math.abs(Math.log2(row.ratio))))));
  const center = (PLOT_LEFT + PLOT_RIGHT) / 2;
  const half = (PLOT_RIGHT - PLOT_LEFT) / 2;
  const x = (ratio) => center + (Math.max(-doublings, Math.min(doublings, Math.log2(ratio))) / doublings) * half;
  const height = TOP + compared.length * ROW + BOTTOM;
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${xmlText(`${title}: figure / baseline`)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="8" y="18" font-size="13" font-weight="bold">${xmlText(title)}</text>`,
    `<text x="8" y="34" fill="#555555">figure / baseline on a log scale: the dark line is the baseline (1×), bars to its right are above it</text>`,
  ];
  compared.forEach((row, index) => {
    const top = TOP + index * ROW;
    const middle = top + ROW / 2;
    const metric = String(row.metric);
    const label = shortLabel(metric);
    const end = x(row.ratio);
    const clipped = Math.abs(Math.log2(row.ratio)) > doublings;
    lines.push(
      `<g>`,
      `<title>${xmlText(`${metric}: ${row.value} vs baseline ${row.baseline} (ratio ${row.ratio})`)}</title>`,
      `<text x="${LABEL_RIGHT}" y="${middle + 4}" text-anchor="end">${xmlText(label)}</text>`,
      `<rect x="${figure(Math.min(center, end))}" y="${top + (ROW - BAR) / 2}" width="${figure(Math.max(1, Math.abs(end - center)))}" height="${BAR}" fill="${row.ratio >= 1 ? ABOVE : BELOW}"/>`,
      `<text x="${PLOT_RIGHT + 8}" y="${middle + 4}">${xmlText(`${figure(row.ratio)}×${clipped ? ' (clipped)' : ''}`)}</text>`,
      `</g>`,
    );
  });
  const axis = TOP + compared.length * ROW;
  lines.push(
    `<line x1="${center}" y1="${TOP - 4}" x2="${center}" y2="${axis + 4}" stroke="#222222" stroke-width="1"/>`,
    `<line x1="${PLOT_LEFT}" y1="${axis + 4}" x2="${PLOT_RIGHT}" y2="${axis + 4}" stroke="#999999" stroke-width="1"/>`,
    `<text x="${PLOT_LEFT}" y="${axis + 20}" text-anchor="middle" fill="#555555">${xmlText(`1/${2 ** doublings}×`)}</text>`,
    `<text x="${center}" y="${axis + 20}" text-anchor="middle" fill="#555555">1×</text>`,
    `<text x="${PLOT_RIGHT}" y="${axis + 20}" text-anchor="middle" fill="#555555">${xmlText(`${2 ** doublings}×`)}</text>`,
    '</svg>',
    '',
  );
  return lines.join('\n');
}
