// Renders whatever the analytics endpoint reports: its totals as figures and a daily series as an
// SVG bar chart built with DOM APIs (presentation attributes and classes, no inline styles).
import { h } from "./console-dom.js";

const SVG = "http://www.w3.org/2000/svg";
const DATE_KEYS = ["date", "day", "bucket", "period", "start"];
const PREFERRED = ["queries", "count", "total", "messages", "conversations"];

/** "avgLatencyMs" → "Avg latency ms". */
function humanize(/** @type {string} */ key) {
  const words = key
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return (words.charAt(0).toUpperCase() + words.slice(1)).replace(/\bapi\b/gi, "API");
}

/** @param {unknown} value */
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Numeric figures: `totals` (or `summary`) when present, else the top level's numbers.
 * @param {Record<string, unknown>} data
 * @returns {Array<[string, number]>}
 */
export function findTotals(data) {
  const source = isRecord(data.totals) ? data.totals : isRecord(data.summary) ? data.summary : data;
  return Object.entries(/** @type {Record<string, unknown>} */ (source)).filter(
    /** @returns {entry is [string, number]} */ (entry) =>
      typeof entry[1] === "number" && Number.isFinite(entry[1]),
  );
}

/**
 * The first array of dated points, with the value to chart.
 * @param {Record<string, unknown>} data
 * @returns {{ label: string, points: Array<{ date: string, value: number }> } | null}
 */
export function findSeries(data) {
  const candidates = Object.entries(data).flatMap(([key, value]) =>
    Array.isArray(value)
      ? [[key, value]]
      : isRecord(value)
        ? Object.entries(value).filter(([, v]) => Array.isArray(v))
        : [],
  );
  for (const [, list] of candidates) {
    const items = /** @type {unknown[]} */ (list).filter(isRecord);
    const first = items[0];
    if (!first) continue;
    const dateKey = DATE_KEYS.find((k) => typeof first[k] === "string");
    if (!dateKey) continue;
    const numeric = Object.keys(first).filter((k) => typeof first[k] === "number");
    const valueKey = PREFERRED.find((k) => numeric.includes(k)) ?? numeric[0];
    if (!valueKey) continue;
    return {
      label: humanize(valueKey),
      points: items.map((item) => ({ date: String(item[dateKey]), value: Number(item[valueKey]) || 0 })),
    };
  }
  return null;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/** A bar chart of the series, with a data table for screen readers and exact numbers. */
export function drawChart(
  /** @type {{ label: string, points: Array<{ date: string, value: number }> }} */ series,
) {
  const width = 640;
  const height = 200;
  const pad = { left: 36, right: 8, top: 12, bottom: 28 };
  const peak = Math.max(0, ...series.points.map((p) => p.value));
  // An even ceiling keeps the middle grid line on a whole number.
  const max = peak < 2 ? 1 : Math.ceil(peak / 2) * 2;
  const ticks = max === 1 ? [0, 1] : [0, 0.5, 1];
  const step = (width - pad.left - pad.right) / Math.max(1, series.points.length);
  const total = series.points.reduce((sum, p) => sum + p.value, 0);
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart",
    role: "img",
    "aria-label": `${series.label} per day: ${total} over ${series.points.length} days, at most ${peak} in a day`,
  });
  const plotHeight = height - pad.top - pad.bottom;
  for (const tick of ticks) {
    const y = pad.top + plotHeight * (1 - tick);
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y, y2: y, class: "grid" }));
    const label = svg("text", { x: pad.left - 6, y: y + 4, "text-anchor": "end", class: "axis" });
    label.textContent = String(Math.round(max * tick));
    chart.append(label);
  }
  series.points.forEach((point, i) => {
    const barHeight = (point.value / max) * plotHeight;
    const bar = svg("rect", {
      x: pad.left + i * step + step * 0.15,
      y: pad.top + plotHeight - barHeight,
      width: Math.max(1, step * 0.7),
      height: barHeight,
      class: "bar",
    });
    const title = svg("title", {});
    title.textContent = `${point.date.slice(0, 10)}: ${point.value}`;
    bar.append(title);
    chart.append(bar);
    const every = Math.ceil(series.points.length / 8);
    if (i % every === 0) {
      const label = svg("text", {
        x: pad.left + i * step + step / 2,
        y: height - 8,
        "text-anchor": "middle",
        class: "axis",
      });
      label.textContent = point.date.slice(5, 10);
      chart.append(label);
    }
  });
  const rows = series.points.map((p) =>
    h("tr", null, h("td", { text: p.date.slice(0, 10) }), h("td", { text: String(p.value) })),
  );
  const data = h(
    "details",
    { class: "chart-data" },
    h("summary", { text: "Show the numbers" }),
    h(
      "table",
      null,
      h(
        "thead",
        null,
        h("tr", null, h("th", { scope: "col", text: "Day" }), h("th", { scope: "col", text: series.label })),
      ),
      h("tbody", null, ...rows),
    ),
  );
  return h(
    "figure",
    { class: "chart-figure" },
    chart,
    h("figcaption", { text: `${series.label} per day` }),
    data,
  );
}

/** A figure as people read it: shares as percentages, latencies in ms, counts with separators. */
function formatFigure(/** @type {string} */ key, /** @type {number} */ value) {
  if (/share$/i.test(key)) return `${Math.round(value * 100)}%`;
  if (/^latency/i.test(key)) return `${Math.round(value)} ms`;
  return Number.isInteger(value) ? value.toLocaleString("en") : value.toFixed(2);
}

/**
 * A ranked list of label/count rows (top questions, top sources, unanswered questions), if present.
 * @param {unknown} list
 * @param {string} title
 * @param {string} labelKey
 * @param {string} countKey
 */
function topList(list, title, labelKey, countKey) {
  if (!Array.isArray(list) || list.length === 0) return null;
  const items = list
    .filter(isRecord)
    .map((item) =>
      h(
        "li",
        null,
        h("span", { class: "top-label", text: String(item[labelKey] ?? "") }),
        h("span", { class: "top-count", text: String(item[countKey] ?? "") }),
      ),
    );
  return h("section", { class: "top-list" }, h("h3", { text: title }), h("ol", null, ...items));
}

/** The analytics view: figures, the daily chart, then the top lists, for whatever the response has. */
export function renderAnalytics(/** @type {unknown} */ data) {
  if (!isRecord(data)) return h("p", { class: "empty", text: "No analytics yet." });
  const record = /** @type {Record<string, unknown>} */ (data);
  /** @type {Array<[string, number]>} */
  const latency = [];
  const total = isRecord(record.latency) && isRecord(record.latency.total) ? record.latency.total : null;
  if (total && typeof total.p50 === "number") latency.push(["latencyP50", total.p50]);
  if (total && typeof total.p95 === "number") latency.push(["latencyP95", total.p95]);
  const figures = [...findTotals(record), ...latency].map(([key, value]) =>
    h(
      "div",
      { class: "stat", dataset: { stat: key } },
      h("dt", { text: humanize(key) }),
      h("dd", { text: formatFigure(key, value) }),
    ),
  );
  const series = findSeries(record);
  const range =
    typeof record.from === "string" && typeof record.to === "string" ? `${record.from} to ${record.to}` : "";
  return h(
    "section",
    { "aria-labelledby": "analytics-title" },
    h("h2", { id: "analytics-title", text: "Analytics" }),
    range ? h("p", { class: "muted", text: `From ${range} (UTC).` }) : null,
    figures.length > 0
      ? h("dl", { class: "stats" }, ...figures)
      : h("p", { class: "empty", text: "No figures yet." }),
    series && series.points.length > 0 ? drawChart(series) : null,
    h(
      "div",
      { class: "top-lists" },
      topList(record.topQuestions, "Top questions", "question", "count"),
      topList(record.unansweredQuestions, "Unanswered questions", "question", "count"),
      topList(record.topSources, "Most cited documents", "title", "citations"),
    ),
  );
}
