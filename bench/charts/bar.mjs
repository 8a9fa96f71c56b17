// A small horizontal bar chart as SVG text: one bar per contender at its median, a whisker from
// the slowest to the fastest run, the value printed at the end. Hand-written so the page needs
// no chart library and the file diffs cleanly between runs.

const escapeXml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function format(value) {
  if (!Number.isFinite(value)) return "n/a";
  if (value >= 100) return Math.round(value).toLocaleString("en-US");
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/**
 * @param {{title: string, unit: string, rows: {label: string, median: number, min: number, max: number, highlight?: boolean}[], note?: string}} chart
 * @returns {string} an SVG document
 */
export function barChart({ title, unit, rows, note }) {
  const labelWidth = 280;
  const plotWidth = 420;
  const valueWidth = 110;
  const rowHeight = 26;
  const top = 44;
  const width = labelWidth + plotWidth + valueWidth;
  const height = top + rows.length * rowHeight + (note ? 34 : 16);
  const largest = Math.max(...rows.map((r) => (Number.isFinite(r.max) ? r.max : r.median)).filter(Number.isFinite), 1);
  const scale = (v) => (Number.isFinite(v) ? (Math.max(0, v) / largest) * plotWidth : 0);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="600" fill="#111">${escapeXml(title)}</text>`,
    `<text x="${width - 12}" y="24" text-anchor="end" fill="#555">${escapeXml(unit)}</text>`,
  ];
  rows.forEach((row, i) => {
    const y = top + i * rowHeight;
    const bar = scale(row.median);
    const fill = row.highlight ? "#2563eb" : "#9ca3af";
    parts.push(
      `<text x="${labelWidth - 10}" y="${y + 16}" text-anchor="end" fill="#111">${escapeXml(row.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 4}" width="${bar.toFixed(1)}" height="${rowHeight - 10}" fill="${fill}" rx="2"/>`,
    );
    if (Number.isFinite(row.min) && Number.isFinite(row.max) && row.max > row.min) {
      const x1 = labelWidth + scale(row.min);
      const x2 = labelWidth + scale(row.max);
      const mid = y + rowHeight / 2 - 1;
      parts.push(
        `<line x1="${x1.toFixed(1)}" y1="${mid}" x2="${x2.toFixed(1)}" y2="${mid}" stroke="#111" stroke-width="1"/>`,
        `<line x1="${x1.toFixed(1)}" y1="${mid - 5}" x2="${x1.toFixed(1)}" y2="${mid + 5}" stroke="#111" stroke-width="1"/>`,
        `<line x1="${x2.toFixed(1)}" y1="${mid - 5}" x2="${x2.toFixed(1)}" y2="${mid + 5}" stroke="#111" stroke-width="1"/>`,
      );
    }
    parts.push(`<text x="${labelWidth + plotWidth + 8}" y="${y + 16}" fill="#111">${format(row.median)}</text>`);
  });
  if (note) parts.push(`<text x="12" y="${height - 12}" fill="#555" font-size="12">${escapeXml(note)}</text>`);
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
