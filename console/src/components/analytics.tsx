import type { Agent, AgentAnalytics, AnalyticsPoint, Conversation, Page } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { createCorrection } from "../loop-api.ts";
import { counted } from "../messages.ts";
import { routeHash } from "../state.ts";
import { CorrectionForm } from "./correction-form.tsx";
import { ErrorBox, Status, Table, TimeAgo } from "./ui.tsx";

type Totals = AgentAnalytics["totals"];

/** Each card: its label and what it counts, shown under it (the same words as docs/api.md). */
const FIGURES: Array<[keyof Totals, string, string]> = [
  ["queries", "Queries", "Questions asked, by visitors and apps (not Try it)."],
  ["conversations", "Conversations", "Conversations begun in the range."],
  ["visitors", "Visitors", "Distinct visitors and API callers (estimated)."],
  ["tokensUsed", "Tokens used", "Tokens the language model read and wrote."],
  ["answeredRate", "Answered", "Answers given from the sources without a doubt, over all answers."],
  ["uncertainRate", "Not sure", "Answers given with a doubt (the closest passage), over all answers."],
  ["fallbackRate", "Fallback", "Answers that were the fallback message, over all answers."],
  [
    "resolutionRate",
    "Helped",
    "Conversations begun in the range with no contact request, no thumbs-down, and a last answer that was not the fallback (not the conversation's Resolved status).",
  ],
  ["handoffs", "Contact requests", "Contact requests visitors sent with the widget's form."],
  ["unanswered", "Got the fallback", "Answers that were the fallback message (a count)."],
  ["feedbackUp", "Thumbs up", "Answers rated up (the latest rating of each)."],
  ["feedbackDown", "Thumbs down", "Answers rated down (the latest rating of each)."],
  ["errors", "Errors", "Questions that failed (a model or server error)."],
  ["streamedShare", "Streamed share", "Answers streamed token by token, over all answers."],
  ["widgetShare", "Widget share", "Questions asked in the widget, over all questions."],
  ["apiShare", "API share", "Questions asked through the API, over all questions."],
];

/** A figure as people read it: shares as percentages, counts with separators. */
function formatFigure(key: string, value: number): string {
  if (/(Share|Rate)$/.test(key)) return `${Math.round(value * 100)}%`;
  return value.toLocaleString("en");
}

export function AnalyticsTab(props: { agent: Agent }) {
  const { agent } = props;
  const data = useSignal<AgentAnalytics | null>(null);
  const error = useSignal<unknown>(null);
  const recent = useSignal<Page<Conversation> | null>(null);
  const recentError = useSignal<unknown>(null);
  useEffect(() => {
    api<AgentAnalytics>("GET", `/analytics/agents/${agent.id}/`).then(
      (body) => {
        data.value = body;
      },
      (caught) => {
        error.value = caught;
      },
    );
    api<Page<Conversation>>("GET", `/agents/${agent.id}/conversations/?page_size=20`).then(
      (body) => {
        recent.value = body;
      },
      (caught) => {
        recentError.value = caught;
      },
    );
  }, []);

  const notHere = error.value instanceof ApiError && error.value.status === 404;
  return (
    <>
      <section class="analytics" aria-labelledby="analytics-title">
        <h2 id="analytics-title">Analytics</h2>
        {notHere ? (
          <p class="empty">Analytics are not available on this server yet.</p>
        ) : error.value ? (
          <ErrorBox error={error.value} />
        ) : data.value ? (
          <AnalyticsBody agent={agent} data={data.value} />
        ) : (
          <p class="loading">Loading analytics…</p>
        )}
      </section>
      <div class="conversations">
        {recentError.value ? <ErrorBox error={recentError.value} /> : null}
        {recent.value && (
          <Table
            caption={`Recent conversations (${recent.value.count})`}
            headers={["Title", "Messages", "Last activity"]}
            rows={recent.value.results.map((c) => [
              <a key="t" href={routeHash(agent.id, "conversations", c.id)}>
                {c.title || "(untitled)"}
              </a>,
              String(c.messageCount),
              <TimeAgo key="u" iso={c.updatedAt} />,
            ])}
          />
        )}
      </div>
    </>
  );
}

function AnalyticsBody(props: { agent: Agent; data: AgentAnalytics }) {
  const { data } = props;
  const latency: Array<[string, string, number | null]> = [
    ["latencyP50", "Latency p50", data.latency.total.p50],
    ["latencyP95", "Latency p95", data.latency.total.p95],
  ];
  return (
    <>
      <p class="muted">
        From {data.from} to {data.to} (UTC).
      </p>
      <dl class="stats">
        {FIGURES.map(([key, label, definition]) => (
          <div class="stat" data-stat={key} key={key} title={definition}>
            <dt>{label}</dt>
            <dd>{formatFigure(key, data.totals[key])}</dd>
            <dd class="stat-def">{definition}</dd>
          </div>
        ))}
        {latency.map(([key, label, value]) =>
          value === null ? null : (
            <div class="stat" data-stat={key} key={key}>
              <dt>{label}</dt>
              <dd>{Math.round(value)} ms</dd>
            </div>
          ),
        )}
      </dl>
      {data.timeseries.length > 0 && <Chart points={data.timeseries} />}
      <div class="top-lists">
        {data.topQuestions.length > 0 && (
          <section class="top-list">
            <h3>Top questions</h3>
            <ol>
              {data.topQuestions.map((q) => (
                <li key={q.question}>
                  <span class="top-label">{q.question}</span>
                  <span class="top-count">{q.count}</span>
                </li>
              ))}
            </ol>
          </section>
        )}
        {data.unansweredQuestions.length > 0 && (
          <section class="top-list unanswered">
            <h3>Questions not answered, or answered with a doubt</h3>
            <p class="muted">
              The fallback (the “Got the fallback” card) and answers given with a doubt (“Not sure”), by
              question.
            </p>
            <ol>
              {data.unansweredQuestions.map((q) => (
                <UnansweredQuestion
                  key={q.question}
                  agent={props.agent}
                  question={q.question}
                  count={q.count}
                />
              ))}
            </ol>
          </section>
        )}
        {data.topSources.length > 0 && (
          <section class="top-list">
            <h3>Most cited documents</h3>
            <ol>
              {data.topSources.map((s) => (
                <li key={s.documentId}>
                  <span class="top-label">{s.title}</span>
                  <span class="top-count">{s.citations}</span>
                </li>
              ))}
            </ol>
          </section>
        )}
      </div>
    </>
  );
}

/** An unanswered question with the "add an answer" action (a correction for that question). */
function UnansweredQuestion(props: { agent: Agent; question: string; count: number }) {
  const open = useSignal(false);
  const saved = useSignal("");
  return (
    <li>
      <span class="top-label">{props.question}</span>
      <span class="top-count">{props.count}</span>
      {!open.value && !saved.value && (
        <button
          type="button"
          class="small"
          aria-label={`Add an answer to “${props.question}”`}
          onClick={() => {
            open.value = true;
          }}
        >
          Add an answer
        </button>
      )}
      <Status>{saved.value}</Status>
      {open.value && (
        <CorrectionForm
          title="Add an answer"
          question={props.question}
          submitLabel="Save answer"
          onSave={async (values) => {
            await createCorrection(props.agent.id, values);
            open.value = false;
            saved.value = "Answer saved.";
          }}
          onCancel={() => {
            open.value = false;
          }}
        />
      )}
    </li>
  );
}

/** Queries per day as an SVG bar chart, with the numbers in a table for screen readers. */
function Chart(props: { points: AnalyticsPoint[] }) {
  const { points } = props;
  const width = 640;
  const height = 200;
  const pad = { left: 36, right: 8, top: 12, bottom: 28 };
  const peak = Math.max(0, ...points.map((p) => p.queries));
  // An even ceiling keeps the middle grid line on a whole number.
  const max = peak < 2 ? 1 : Math.ceil(peak / 2) * 2;
  const ticks = max === 1 ? [0, 1] : [0, 0.5, 1];
  const step = (width - pad.left - pad.right) / Math.max(1, points.length);
  const plot = height - pad.top - pad.bottom;
  const total = points.reduce((sum, p) => sum + p.queries, 0);
  const every = Math.ceil(points.length / 8);
  return (
    <figure class="chart-figure">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        class="chart"
        role="img"
        aria-label={`Queries per day: ${total} over ${counted(points.length, "day")}, at most ${peak} in a day`}
      >
        {ticks.map((tick) => {
          const y = pad.top + plot * (1 - tick);
          return (
            <g key={tick}>
              <line x1={pad.left} x2={width - pad.right} y1={y} y2={y} class="grid" />
              <text x={pad.left - 6} y={y + 4} text-anchor="end" class="axis">
                {Math.round(max * tick)}
              </text>
            </g>
          );
        })}
        {points.map((point, i) => {
          const barHeight = (point.queries / max) * plot;
          return (
            <g key={point.start}>
              <rect
                x={pad.left + i * step + step * 0.15}
                y={pad.top + plot - barHeight}
                width={Math.max(1, step * 0.7)}
                height={barHeight}
                class="bar"
              >
                <title>
                  {point.start.slice(0, 10)}: {point.queries}
                </title>
              </rect>
              {i % every === 0 && (
                <text x={pad.left + i * step + step / 2} y={height - 8} text-anchor="middle" class="axis">
                  {point.start.slice(5, 10)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>Queries per day</figcaption>
      <details class="chart-data">
        <summary>Show the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Queries</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.start}>
                <td>{p.start.slice(0, 10)}</td>
                <td>{p.queries}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
