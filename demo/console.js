// The owner console: a small single-page app over the REST API (vanilla JS, DOM APIs only).

import { renderAnalytics } from "./console-analytics.js";
import {
  ApiError,
  api,
  listAll,
  loadSession,
  readEvents,
  saveSession,
  setSignedOutHandler,
} from "./console-api.js";
import {
  append,
  clearErrors,
  copyText,
  field,
  h,
  nextId,
  replace,
  select,
  showError,
  timeAgo,
} from "./console-dom.js";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const sessionBox = /** @type {HTMLElement} */ (document.getElementById("session"));

const TABS = /** @type {const} */ ([
  ["settings", "Settings"],
  ["sources", "Sources"],
  ["try", "Try it"],
  ["embed", "Embed"],
  ["keys", "API keys"],
  ["analytics", "Analytics"],
]);

/** @typedef {typeof TABS[number][0]} Tab */

const state = {
  /** @type {any[]} */
  agents: [],
  /** @type {any | null} */
  agent: null,
  /** @type {Tab} */
  tab: "settings",
  /** Runs when the current tab goes away (stops polling, aborts streams). @type {Array<() => void>} */
  cleanups: [],
  /** The "Try it" conversation per agent, so follow-up questions keep their context. @type {Map<string, string>} */
  conversations: new Map(),
};

const statusLabels = /** @type {Record<string, string>} */ ({
  queued: "Queued",
  syncing: "Syncing",
  ready: "Ready",
  failed: "Failed",
  processing: "Processing",
});

/** A coloured status pill with its word (never colour alone). */
function badge(/** @type {string} */ status) {
  return h("span", {
    class: `badge badge-${status}`,
    dataset: { status },
    text: statusLabels[status] ?? status,
  });
}

function runCleanups() {
  for (const fn of state.cleanups.splice(0)) fn();
}

// ---------------------------------------------------------------------------------------------
// Session

function renderLogin(/** @type {string} */ notice = "") {
  runCleanups();
  replace(sessionBox);
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "current-password",
    required: true,
  });
  const submit = h("button", { type: "submit", class: "primary", text: "Log in" });
  const form = h(
    "form",
    { class: "card login", "aria-labelledby": "login-title", novalidate: true },
    h("h1", { id: "login-title", text: "Log in to Lore" }),
    notice ? h("p", { class: "info", role: "status", text: notice }) : null,
    field("Email", email),
    field("Password", password),
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    try {
      const session = await api("POST", "/auth/login/", {
        body: { email: email.value, password: password.value },
        auth: false,
      });
      saveSession(session);
      await start();
    } catch (error) {
      showError(form, error);
    } finally {
      submit.disabled = false;
    }
  });
  replace(main, form);
  email.focus();
}

function renderSessionBox() {
  const session = loadSession();
  if (!session) return replace(sessionBox);
  const logout = h("button", { type: "button", class: "ghost", text: "Log out" });
  logout.addEventListener("click", async () => {
    logout.disabled = true;
    try {
      await api("POST", "/auth/logout/");
    } catch {
      // The session ends locally either way.
    }
    saveSession(null);
    location.hash = "";
    renderLogin("You are logged out.");
  });
  replace(sessionBox, h("span", { class: "who", text: session.user.email }), logout);
}

setSignedOutHandler(() => renderLogin("Your session ended. Please log in again."));

// ---------------------------------------------------------------------------------------------
// Layout and routing: #/agents/{id}/{tab}

/** @returns {{ agentId: string | null, tab: Tab }} */
function parseRoute() {
  const match = /^#\/agents\/([\w-]+)(?:\/(\w+))?/.exec(location.hash);
  const tab = /** @type {Tab} */ (TABS.some(([id]) => id === match?.[2]) ? match?.[2] : "settings");
  return { agentId: match?.[1] ?? null, tab };
}

function go(/** @type {string} */ agentId, /** @type {Tab} */ tab = "settings") {
  const hash = `#/agents/${agentId}/${tab}`;
  if (location.hash === hash) void route();
  else location.hash = hash;
}

const agentList = h("ul", { class: "agent-list", "aria-label": "Agents" });
const detail = h("section", { class: "detail", "aria-live": "off" });

async function start() {
  try {
    await api("GET", "/auth/me/");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return renderLogin();
    return replace(main, errorBox(error));
  }
  renderSessionBox();
  replace(main, h("div", { class: "layout" }, renderSidebar(), detail));
  await loadAgents();
  await route();
}

function renderSidebar() {
  const name = h("input", {
    name: "name",
    required: true,
    maxlength: "200",
    placeholder: "e.g. Docs assistant",
  });
  const submit = h("button", { type: "submit", class: "primary", text: "Create agent" });
  const form = h(
    "form",
    { class: "create-agent", "aria-labelledby": "create-agent-title", novalidate: true },
    h("h2", { id: "create-agent-title", text: "New agent" }),
    field("Agent name", name),
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    try {
      const agent = await api("POST", "/agents/", { body: { name: name.value } });
      name.value = "";
      await loadAgents();
      go(agent.id, "sources");
    } catch (error) {
      showError(form, error);
    } finally {
      submit.disabled = false;
    }
  });
  return h("aside", { class: "sidebar" }, h("h2", { text: "Agents" }), agentList, form);
}

async function loadAgents() {
  try {
    state.agents = await listAll("/agents/");
  } catch (error) {
    replace(agentList, h("li", null, errorBox(error)));
    return;
  }
  renderAgentList();
}

function renderAgentList() {
  const { agentId } = parseRoute();
  replace(agentList);
  if (state.agents.length === 0) {
    agentList.append(h("li", { class: "empty", text: "No agents yet. Create one below." }));
  }
  for (const agent of state.agents) {
    const link = h(
      "a",
      { href: `#/agents/${agent.id}/settings`, class: "agent-link", dataset: { agentId: agent.id } },
      h("span", { class: "agent-name", text: agent.name }),
      badge(agent.status),
    );
    if (agent.id === agentId) link.setAttribute("aria-current", "page");
    agentList.append(h("li", null, link));
  }
}

async function route() {
  runCleanups();
  const { agentId, tab } = parseRoute();
  renderAgentList();
  if (!agentId) {
    const first = state.agents[0];
    if (first) return go(first.id);
    replace(
      detail,
      h(
        "div",
        { class: "card welcome" },
        h("h1", { text: "Welcome to Lore" }),
        h("p", {
          text: "Create an agent, give it some knowledge (files, a website or text), try a question, then paste one script tag into your site.",
        }),
      ),
    );
    return;
  }
  try {
    state.agent = await api("GET", `/agents/${agentId}/`);
  } catch (error) {
    replace(detail, errorBox(error));
    return;
  }
  state.tab = tab;
  renderDetail();
}

function errorBox(/** @type {unknown} */ error) {
  const message = error instanceof Error ? error.message : String(error);
  return h("div", { class: "form-error", role: "alert" }, h("p", { text: message }));
}

// ---------------------------------------------------------------------------------------------
// Agent detail and tabs

function renderDetail() {
  const agent = state.agent;
  const title = h("h1", { tabindex: "-1", id: "agent-title", text: agent.name });
  const tablist = h("div", { role: "tablist", "aria-label": "Agent sections", class: "tabs" });
  const panel = h("div", { role: "tabpanel", class: "tabpanel", tabindex: "0" });
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  for (const [id, label] of TABS) {
    const selected = id === state.tab;
    const button = h("button", {
      type: "button",
      role: "tab",
      id: `tab-${id}`,
      "aria-selected": String(selected),
      "aria-controls": "agent-tabpanel",
      tabindex: selected ? "0" : "-1",
      dataset: { tab: id },
      text: label,
    });
    button.addEventListener("click", () => go(agent.id, id));
    buttons.push(button);
    tablist.append(button);
  }
  // Arrow keys move between tabs (the ARIA tabs pattern); Tab moves on into the panel.
  tablist.addEventListener("keydown", (event) => {
    const index = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (index < 0) return;
    let next = -1;
    if (event.key === "ArrowRight") next = (index + 1) % buttons.length;
    else if (event.key === "ArrowLeft") next = (index - 1 + buttons.length) % buttons.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = buttons.length - 1;
    if (next < 0) return;
    event.preventDefault();
    buttons[next]?.focus();
    buttons[next]?.click();
  });
  panel.id = "agent-tabpanel";
  panel.setAttribute("aria-labelledby", `tab-${state.tab}`);
  replace(
    detail,
    h(
      "div",
      { class: "detail-head" },
      title,
      badge(agent.status),
      h("p", { class: "muted" }, "Widget id ", h("code", { text: agent.widgetId })),
    ),
    tablist,
    panel,
  );
  const render = {
    settings: renderSettings,
    sources: renderSources,
    try: renderTry,
    embed: renderEmbed,
    keys: renderKeys,
    analytics: renderAnalyticsTab,
  }[state.tab];
  render(panel, agent);
  if (document.activeElement === document.body || !detail.contains(document.activeElement)) {
    const active = buttons.find((b) => b.dataset.tab === state.tab);
    if (main.contains(document.activeElement) && active) active.focus();
  }
}

/** Updates the agent everywhere it shows after a change. */
function agentChanged(/** @type {any} */ agent) {
  state.agent = agent;
  state.agents = state.agents.map((a) => (a.id === agent.id ? agent : a));
  renderAgentList();
  const title = document.getElementById("agent-title");
  if (title) title.textContent = agent.name;
  const head = detail.querySelector(".detail-head .badge");
  head?.replaceWith(badge(agent.status));
}

/** A polite status line for "Saved." and the like. */
function statusLine() {
  return h("p", { class: "status", role: "status" });
}

// ---------------------------------------------------------------------------------------------
// Settings

function renderSettings(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const theme = agent.theme;
  const lines = (/** @type {string[]} */ list) => list.join("\n");
  const name = h("input", { name: "name", value: agent.name, required: true, maxlength: "200" });
  const description = h("input", { name: "description", value: agent.description });
  const instructions = h("textarea", { name: "instructions", rows: "4" });
  instructions.value = agent.instructions;
  const welcome = h("textarea", { name: "welcomeMessage", rows: "2" });
  welcome.value = agent.welcomeMessage;
  const suggestions = h("textarea", { name: "suggestedQuestions", rows: "3" });
  suggestions.value = lines(agent.suggestedQuestions);
  const fallback = h("textarea", { name: "fallbackMessage", rows: "2" });
  fallback.value = agent.fallbackMessage;
  const model = h("input", { name: "model", value: agent.model, spellcheck: "false" });
  const topK = h("input", {
    name: "retrieval.topK",
    type: "number",
    min: "1",
    max: "50",
    value: agent.retrieval.topK,
  });
  const mode = select(
    "retrieval.mode",
    [
      ["hybrid", "Hybrid (keywords + meaning)"],
      ["keyword", "Keyword (BM25)"],
      ["semantic", "Semantic (embeddings)"],
    ],
    agent.retrieval.mode,
  );
  const minScore = h("input", {
    name: "retrieval.minScore",
    type: "number",
    min: "0",
    max: "1",
    step: "0.01",
    value: agent.retrieval.minScore,
  });
  const color = h("input", { name: "theme.primaryColor", value: theme.primaryColor, spellcheck: "false" });
  const picker = h("input", { type: "color", "aria-label": "Colour picker", class: "picker" });
  if (/^#[0-9a-f]{6}$/i.test(theme.primaryColor)) picker.value = theme.primaryColor.toLowerCase();
  picker.addEventListener("input", () => {
    color.value = picker.value;
  });
  color.addEventListener("input", () => {
    if (/^#[0-9a-f]{6}$/i.test(color.value)) picker.value = color.value.toLowerCase();
  });
  const position = select(
    "theme.position",
    [
      ["bottom-right", "Bottom right"],
      ["bottom-left", "Bottom left"],
    ],
    theme.position,
  );
  const widgetTitle = h("input", { name: "theme.title", value: theme.title, maxlength: "80" });
  const scheme = select(
    "theme.colorScheme",
    [
      ["auto", "Follow the visitor's system"],
      ["light", "Light"],
      ["dark", "Dark"],
    ],
    theme.colorScheme,
  );
  const origins = h("textarea", { name: "allowedOrigins", rows: "3", spellcheck: "false" });
  origins.value = lines(agent.allowedOrigins);

  const status = statusLine();
  const submit = h("button", { type: "submit", class: "primary", text: "Save settings" });
  const colorField = field("Primary colour", color, "A hex colour like #2563eb.");
  colorField.append(picker);
  const form = h(
    "form",
    { class: "settings", "aria-label": "Agent settings", novalidate: true },
    h(
      "fieldset",
      null,
      h("legend", { text: "Assistant" }),
      field("Name", name),
      field("Description", description),
      field("Instructions", instructions, "How the assistant should answer: tone, scope, what to avoid."),
      field("Welcome message", welcome),
      field("Suggested questions", suggestions, "One per line, up to 10."),
      field("Fallback message", fallback, "Said when the knowledge base has nothing relevant."),
      field("Model", model, "'extractive' (built in, no model needed) or 'openai:<model>'."),
    ),
    h(
      "fieldset",
      null,
      h("legend", { text: "Retrieval" }),
      h(
        "div",
        { class: "row" },
        field("Top K", topK, "Chunks retrieved per question."),
        field("Mode", mode),
        field("Minimum score", minScore, "0 to 1."),
      ),
    ),
    h(
      "fieldset",
      null,
      h("legend", { text: "Widget theme" }),
      h("div", { class: "row" }, colorField, field("Position", position), field("Colour scheme", scheme)),
      field("Title", widgetTitle, "Shown in the widget's header; the agent's name when empty."),
    ),
    h(
      "fieldset",
      null,
      h("legend", { text: "Security" }),
      field(
        "Allowed origins",
        origins,
        "One origin per line, like https://www.example.com — pages elsewhere can't use the widget. This server's own origin is no exception; Embed → Preview works without it.",
      ),
    ),
    h("div", { class: "actions" }, submit, status),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    status.textContent = "";
    const split = (/** @type {string} */ text) =>
      text
        .split("\n")
        .map((s) => s.trim())
        .filter(Boolean);
    const body = {
      name: name.value,
      description: description.value,
      instructions: instructions.value,
      welcomeMessage: welcome.value,
      suggestedQuestions: split(suggestions.value),
      fallbackMessage: fallback.value,
      model: model.value.trim(),
      retrieval: { topK: Number(topK.value), mode: mode.value, minScore: Number(minScore.value) },
      theme: {
        primaryColor: color.value.trim(),
        position: position.value,
        title: widgetTitle.value,
        colorScheme: scheme.value,
      },
      allowedOrigins: split(origins.value).map((o) => o.replace(/\/+$/, "")),
    };
    submit.disabled = true;
    try {
      agentChanged(await api("PATCH", `/agents/${agent.id}/`, { body }));
      status.textContent = "Saved.";
    } catch (error) {
      showError(form, error);
    } finally {
      submit.disabled = false;
    }
  });

  const remove = h("button", { type: "button", class: "danger", text: "Delete this agent" });
  const danger = h(
    "section",
    { class: "danger-zone", "aria-labelledby": "danger-title" },
    h("h2", { id: "danger-title", text: "Delete agent" }),
    h("p", {
      text: "Deletes the agent, its conversations and its API keys. Data sources stay in the workspace.",
    }),
    remove,
  );
  remove.addEventListener("click", async () => {
    if (!confirm(`Delete the agent “${agent.name}”? This cannot be undone.`)) return;
    try {
      await api("DELETE", `/agents/${agent.id}/`);
      state.agents = state.agents.filter((a) => a.id !== agent.id);
      location.hash = "";
    } catch (error) {
      showError(danger, error);
    }
  });
  replace(panel, form, danger);
}

// ---------------------------------------------------------------------------------------------
// Sources

function renderSources(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const list = h("div", { class: "source-list", "aria-live": "off" });
  const listStatus = statusLine();
  /** Open "documents and history" panels by source id, kept across refreshes. @type {Set<string>} */
  const open = new Set();
  /** @type {any[]} */
  let sources = [];
  let timer = 0;
  let disposed = false;
  state.cleanups.push(() => {
    disposed = true;
    clearTimeout(timer);
  });

  const refresh = async () => {
    clearTimeout(timer);
    try {
      sources = await listAll(`/data-sources/?workspace_id=${agent.workspaceId}`);
    } catch (error) {
      replace(list, errorBox(error));
      return;
    }
    if (disposed) return;
    drawList();
    // Watch the sync: poll while anything is queued or syncing, and keep the agent's status current.
    if (
      sources.some((s) => s.status === "queued" || s.status === "syncing") ||
      state.agent?.status === "processing"
    ) {
      timer = window.setTimeout(async () => {
        if (disposed) return;
        try {
          const fresh = await api("GET", `/agents/${agent.id}/`);
          if (fresh.status !== state.agent?.status) agentChanged(fresh);
        } catch {
          // The next refresh shows any error.
        }
        await refresh();
      }, 1000);
    }
  };

  const setAttached = async (/** @type {string} */ id, /** @type {boolean} */ on) => {
    const current = new Set(state.agent.dataSourceIds);
    if (on) current.add(id);
    else current.delete(id);
    agentChanged(await api("PATCH", `/agents/${agent.id}/`, { body: { dataSourceIds: [...current] } }));
  };

  const drawList = () => {
    const attached = new Set(state.agent.dataSourceIds);
    const rows = sources.map((source) => sourceRow(source, attached.has(source.id)));
    replace(
      list,
      sources.length === 0
        ? h("p", { class: "empty", text: "This workspace has no data sources yet. Add one below." })
        : h("ul", { class: "sources", "aria-label": "Data sources" }, ...rows),
    );
  };

  const sourceRow = (/** @type {any} */ source, /** @type {boolean} */ attached) => {
    const check = h("input", { type: "checkbox", id: `use-${source.id}`, checked: attached });
    const row = h("li", { class: "source-row", dataset: { sourceId: source.id, status: source.status } });
    check.addEventListener("change", async () => {
      check.disabled = true;
      try {
        await setAttached(source.id, check.checked);
        listStatus.textContent = check.checked
          ? `“${source.name}” is now used by this agent.`
          : `“${source.name}” is no longer used by this agent.`;
      } catch (error) {
        check.checked = !check.checked;
        showError(row, error);
      } finally {
        check.disabled = false;
      }
    });
    const { total, processed } = source.progress;
    const progress =
      source.status === "syncing" || source.status === "queued"
        ? h(
            "span",
            { class: "progress" },
            h("progress", {
              max: String(Math.max(total, 1)),
              value: String(processed),
              "aria-label": `Sync progress of ${source.name}`,
            }),
            h("span", { text: total > 0 ? `${processed} / ${total}` : "starting…" }),
          )
        : null;
    const sync = h("button", { type: "button", class: "small", text: "Sync now" });
    sync.addEventListener("click", async () => {
      sync.disabled = true;
      try {
        await api("POST", `/data-sources/${source.id}/sync/`);
        listStatus.textContent = `Sync of “${source.name}” queued.`;
        await refresh();
      } catch (error) {
        showError(row, error);
        sync.disabled = false;
      }
    });
    const remove = h("button", { type: "button", class: "small danger", text: "Delete" });
    remove.addEventListener("click", async () => {
      if (!confirm(`Delete the data source “${source.name}” and everything indexed from it?`)) return;
      try {
        await api("DELETE", `/data-sources/${source.id}/`);
        listStatus.textContent = `“${source.name}” deleted.`;
        agentChanged(await api("GET", `/agents/${agent.id}/`));
        await refresh();
      } catch (error) {
        showError(row, error);
      }
    });
    const more = h("details", { class: "source-more" }, h("summary", { text: "Documents and sync history" }));
    const moreBody = h("div", { class: "more-body" });
    more.append(moreBody);
    if (open.has(source.id)) {
      more.open = true;
      void loadMore(source, moreBody);
    }
    more.addEventListener("toggle", () => {
      if (more.open) {
        open.add(source.id);
        void loadMore(source, moreBody);
      } else open.delete(source.id);
    });
    append(row, [
      h(
        "div",
        { class: "source-main" },
        check,
        h(
          "label",
          { for: check.id, class: "source-name" },
          source.name,
          h("span", { class: "sr-only", text: " — use in this agent" }),
        ),
        h("span", { class: "type", text: source.type }),
        badge(source.status),
        progress,
      ),
      h(
        "p",
        { class: "muted counts" },
        `${source.documentCount} documents · ${source.chunkCount} chunks · last synced `,
        timeAgo(source.lastSyncedAt),
      ),
      source.lastError ? h("p", { class: "source-error", text: `Last error: ${source.lastError}` }) : null,
      h("div", { class: "row-actions" }, sync, remove),
      more,
    ]);
    return row;
  };

  const loadMore = async (/** @type {any} */ source, /** @type {HTMLElement} */ into) => {
    try {
      const [docs, runs] = await Promise.all([
        api("GET", `/data-sources/${source.id}/documents/?page_size=50`),
        api("GET", `/data-sources/${source.id}/syncs/?page_size=10`),
      ]);
      const docTable = table(
        `Documents (${docs.count})`,
        ["Title", "Kind", "Status", "Chunks"],
        docs.results.map((/** @type {any} */ d) => [
          d.sourceUrl && /^https?:\/\//.test(d.sourceUrl)
            ? h("a", { href: d.sourceUrl, rel: "noopener noreferrer", target: "_blank", text: d.title })
            : d.title,
          d.kind,
          d.error ? `${d.status}: ${d.error}` : d.status,
          String(d.chunkCount),
        ]),
      );
      const runTable = table(
        "Sync history",
        ["Queued", "Trigger", "Status", "Added", "Updated", "Removed", "Unchanged", "Failed", "Duration"],
        runs.results.map((/** @type {any} */ r) => [
          timeAgo(r.queuedAt),
          r.trigger,
          r.error ? `${r.status}: ${r.error}` : r.status,
          String(r.added),
          String(r.updated),
          String(r.removed),
          String(r.unchanged),
          String(r.failed),
          r.durationMs === null ? "—" : `${(r.durationMs / 1000).toFixed(1)} s`,
        ]),
      );
      replace(into, docTable, runTable);
    } catch (error) {
      replace(into, errorBox(error));
    }
  };

  replace(
    panel,
    h("h2", { text: "Knowledge" }),
    h("p", {
      class: "muted",
      text: "Tick the sources this agent answers from. Sources belong to the workspace, so agents can share them.",
    }),
    listStatus,
    list,
    addSourceForm(agent, async (created) => {
      listStatus.textContent = `“${created.name}” added; syncing now.`;
      await refresh();
    }),
  );
  void refresh();
}

/**
 * A small table with a caption.
 * @param {string} caption
 * @param {string[]} headers
 * @param {Array<Array<Node | string>>} rows
 */
function table(caption, headers, rows) {
  const head = h("tr");
  for (const text of headers) head.append(h("th", { scope: "col", text }));
  const body = h("tbody");
  for (const cells of rows) {
    const tr = h("tr");
    for (const cell of cells) tr.append(h("td", null, cell));
    body.append(tr);
  }
  if (rows.length === 0)
    body.append(h("tr", null, h("td", { colspan: String(headers.length), text: "Nothing yet." })));
  return h(
    "div",
    { class: "table-wrap" },
    h("table", null, h("caption", { text: caption }), h("thead", null, head), body),
  );
}

/**
 * The "add a data source" form: files (multipart), a web address, or text entries.
 * @param {any} agent
 * @param {(created: any) => Promise<void>} onCreated
 */
function addSourceForm(agent, onCreated) {
  const kind = { value: "text" };
  const name = h("input", { name: "name", required: true, maxlength: "200" });
  const attach = h("input", { type: "checkbox", id: nextId("attach"), checked: true });

  // Text entries
  const entries = h("div", { class: "entries" });
  const addEntry = () => {
    const index = entries.children.length;
    const title = h("input", { name: `config.entries.${index}.title`, required: true });
    const content = h("textarea", { name: `config.entries.${index}.content`, rows: "5", required: true });
    entries.append(
      h(
        "fieldset",
        { class: "entry" },
        h("legend", { text: `Entry ${index + 1}` }),
        field("Title", title),
        field("Content", content),
      ),
    );
    return title;
  };
  addEntry();
  const more = h("button", { type: "button", class: "small", text: "Add another entry" });
  more.addEventListener("click", () => addEntry().focus());
  const textPart = h("div", { class: "kind-part", dataset: { kind: "text" } }, entries, more);

  // Web
  const url = h("input", { name: "config.url", type: "url", placeholder: "https://docs.example.com/" });
  const mode = select(
    "config.mode",
    [
      ["page", "This page only"],
      ["sitemap", "Pages of a sitemap"],
      ["crawl", "Crawl links from this page"],
    ],
    "page",
  );
  const maxPages = h("input", {
    name: "config.maxPages",
    type: "number",
    min: "1",
    max: "10000",
    value: "100",
  });
  const maxDepth = h("input", { name: "config.maxDepth", type: "number", min: "0", max: "10", value: "2" });
  const webPart = h(
    "div",
    { class: "kind-part", dataset: { kind: "web" }, hidden: true },
    field("Address", url, "robots.txt is honoured; private and local addresses are refused."),
    h(
      "div",
      { class: "row" },
      field("Mode", mode),
      field("Max pages", maxPages),
      field("Max depth", maxDepth),
    ),
  );

  // Files
  const files = h("input", {
    name: "files",
    type: "file",
    multiple: true,
    accept: ".pdf,.docx,.md,.markdown,.html,.htm,.txt,.csv",
  });
  const filePart = h(
    "div",
    { class: "kind-part", dataset: { kind: "file" }, hidden: true },
    field("Files", files, "PDF, DOCX, Markdown, HTML, TXT or CSV."),
  );

  const kinds = h("fieldset", { class: "kinds" }, h("legend", { text: "Kind" }));
  const parts = [textPart, webPart, filePart];
  for (const [value, label] of [
    ["text", "Text"],
    ["web", "Web address"],
    ["file", "Upload files"],
  ]) {
    const id = nextId("kind");
    const radio = h("input", { type: "radio", name: "source-kind", id, value, checked: value === "text" });
    radio.addEventListener("change", () => {
      kind.value = value;
      for (const part of parts) part.hidden = part.dataset.kind !== value;
    });
    kinds.append(h("span", { class: "radio" }, radio, h("label", { for: id, text: label })));
  }

  const submit = h("button", { type: "submit", class: "primary", text: "Add source" });
  const form = h(
    "form",
    { class: "card add-source", "aria-labelledby": "add-source-title", novalidate: true },
    h("h2", { id: "add-source-title", text: "Add a data source" }),
    field("Name", name),
    kinds,
    ...parts,
    h("div", { class: "check" }, attach, h("label", { for: attach.id, text: "Use it in this agent" })),
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    /** @type {unknown} */
    let body;
    if (kind.value === "file") {
      const data = new FormData();
      data.set("name", name.value);
      data.set("type", "file");
      for (const file of files.files ?? []) data.append("files", file);
      body = data;
    } else if (kind.value === "web") {
      body = {
        name: name.value,
        type: "web",
        config: {
          url: url.value.trim(),
          mode: mode.value,
          maxPages: Number(maxPages.value),
          maxDepth: Number(maxDepth.value),
        },
      };
    } else {
      const list = [...entries.querySelectorAll("fieldset")].map((set) => ({
        title: /** @type {HTMLInputElement} */ (set.querySelector("input")).value,
        content: /** @type {HTMLTextAreaElement} */ (set.querySelector("textarea")).value,
      }));
      body = { name: name.value, type: "text", config: { entries: list } };
    }
    submit.disabled = true;
    try {
      const created = await api("POST", "/data-sources/", { body });
      if (attach.checked) {
        const ids = [...new Set([...state.agent.dataSourceIds, created.id])];
        agentChanged(await api("PATCH", `/agents/${agent.id}/`, { body: { dataSourceIds: ids } }));
      }
      form.reset();
      attach.checked = true;
      replace(entries);
      addEntry();
      for (const part of parts) part.hidden = part.dataset.kind !== "text";
      kind.value = "text";
      await onCreated(created);
    } catch (error) {
      showError(form, error);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// ---------------------------------------------------------------------------------------------
// Try it

function renderTry(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const question = h("textarea", { name: "message", rows: "3", required: true, maxlength: "10000" });
  const ask = h("button", { type: "submit", class: "primary", text: "Ask" });
  const searchOnly = h("button", { type: "button", text: "Search only" });
  const stop = h("button", { type: "button", text: "Stop", hidden: true });
  const reset = h("button", { type: "button", class: "ghost", text: "New conversation" });
  const transcript = h("ol", { class: "transcript", "aria-label": "Answers" });
  const results = h("div", { class: "search-results" });
  const status = statusLine();
  /** @type {AbortController | null} */
  let controller = null;
  state.cleanups.push(() => controller?.abort());

  const form = h(
    "form",
    { class: "try", "aria-label": "Ask the agent", novalidate: true },
    field("Question", question, "Enter asks; Shift+Enter starts a new line."),
    h("div", { class: "actions" }, ask, searchOnly, stop, reset, status),
  );
  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  reset.addEventListener("click", () => {
    state.conversations.delete(agent.id);
    replace(transcript);
    replace(results);
    status.textContent = "New conversation started.";
    question.focus();
  });
  stop.addEventListener("click", () => controller?.abort());

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const message = question.value;
    if (!message.trim()) {
      showError(form, { message: "Type a question first.", fields: { message: ["Required."] } });
      return;
    }
    replace(results);
    const turn = answerTurn(message);
    transcript.append(turn.element);
    controller = new AbortController();
    ask.disabled = true;
    searchOnly.disabled = true;
    stop.hidden = false;
    status.textContent = "Answering…";
    try {
      const res = await api("POST", `/agents/${agent.id}/query/`, {
        body: { message, conversationId: state.conversations.get(agent.id) },
        headers: { Accept: "text/event-stream" },
        signal: controller.signal,
        raw: true,
      });
      question.value = "";
      for await (const item of readEvents(res.body)) {
        if (item.type === "start") state.conversations.set(agent.id, item.conversationId);
        else if (item.type === "token") turn.addToken(item.token);
        else if (item.type === "sources") turn.setSources(item.sources);
        else if (item.type === "done") turn.finish(item);
        else if (item.type === "error")
          throw new ApiError(502, { error: item.error, message: item.message, details: {} });
      }
      status.textContent = "Answer complete.";
    } catch (error) {
      if (controller.signal.aborted) {
        turn.stopped();
        status.textContent = "Stopped.";
      } else {
        turn.element.remove();
        status.textContent = "";
        showError(form, error);
      }
    } finally {
      controller = null;
      ask.disabled = false;
      searchOnly.disabled = false;
      stop.hidden = true;
    }
  });

  searchOnly.addEventListener("click", async () => {
    clearErrors(form);
    if (!question.value.trim()) {
      showError(form, { message: "Type a question first.", fields: { message: ["Required."] } });
      return;
    }
    searchOnly.disabled = true;
    try {
      const found = await api("POST", `/agents/${agent.id}/search/`, { body: { query: question.value } });
      const items = found.results.map((/** @type {any} */ r) =>
        h(
          "li",
          { class: "result", dataset: { rank: r.rank } },
          h(
            "div",
            { class: "result-head" },
            h("span", { class: "rank", text: `#${r.rank}` }),
            h("span", { class: "result-title", text: r.title }),
            h("span", { class: "muted", text: r.dataSourceName }),
            h("meter", {
              min: "0",
              max: "1",
              value: String(r.score),
              "aria-label": `Score of result ${r.rank}`,
            }),
            h("span", { class: "score", text: r.score.toFixed(3) }),
          ),
          h("p", { class: "snippet", text: r.content }),
        ),
      );
      replace(
        results,
        h("h3", { text: `Search results (${found.results.length}) in ${found.retrievalTime} ms` }),
        items.length > 0
          ? h("ol", { class: "results" }, ...items)
          : h("p", { class: "empty", text: "Nothing matched. Is a ready source attached to this agent?" }),
      );
    } catch (error) {
      showError(form, error);
    } finally {
      searchOnly.disabled = false;
    }
  });

  replace(
    panel,
    h("p", {
      class: "muted",
      text: "Ask as a visitor would. The answer streams in, with the sources it cites; follow-up questions continue the conversation.",
    }),
    form,
    transcript,
    results,
  );
  question.focus();
}

/** One question and its streamed answer with citation cards. */
function answerTurn(/** @type {string} */ message) {
  const answer = h("div", { class: "answer", "aria-busy": "true", dataset: { state: "streaming" } });
  const citations = h("ol", { class: "citations", "aria-label": "Sources" });
  const meta = h("p", { class: "meta muted" });
  const element = h(
    "li",
    { class: "turn" },
    h("p", { class: "question" }, h("span", { class: "sr-only", text: "Question: " }), message),
    answer,
    citations,
    meta,
  );
  let text = "";
  /** @type {HTMLDetailsElement[]} */
  let cards = [];
  const openCard = (/** @type {number} */ rank) => {
    const card = cards.find((c) => c.dataset.rank === String(rank));
    if (!card) return;
    card.open = true;
    card.querySelector("summary")?.focus();
  };
  /** The answer with [n] markers as buttons that open the matching card. */
  const drawAnswer = () => {
    replace(answer);
    for (const part of text.split(/(\[\d+\])/)) {
      const match = /^\[(\d+)\]$/.exec(part);
      if (match && cards.some((c) => c.dataset.rank === match[1])) {
        const rank = Number(match[1]);
        const button = h("button", {
          type: "button",
          class: "cite",
          "aria-label": `Source ${rank}`,
          text: `[${rank}]`,
        });
        button.addEventListener("click", () => openCard(rank));
        answer.append(button);
      } else if (part) answer.append(part);
    }
  };
  return {
    element,
    addToken(/** @type {string} */ token) {
      text += token;
      answer.textContent = text;
    },
    setSources(/** @type {any[]} */ sources) {
      cards = sources.map((s) => {
        const card = h(
          "details",
          { class: "citation", dataset: { rank: String(s.rank) } },
          h(
            "summary",
            null,
            h("span", { class: "rank", text: String(s.rank) }),
            h("span", { class: "citation-title", text: s.title || s.dataSourceName }),
            h("span", {
              class: "muted",
              text: ` · ${s.dataSourceName} · score ${Number(s.score).toFixed(2)}`,
            }),
          ),
          h("p", { class: "snippet", text: s.content }),
          s.sourceUrl && /^https?:\/\//.test(s.sourceUrl)
            ? h("a", {
                href: s.sourceUrl,
                target: "_blank",
                rel: "noopener noreferrer",
                text: "Open the source",
              })
            : null,
        );
        return card;
      });
      replace(citations, ...cards.map((card) => h("li", null, card)));
    },
    finish(/** @type {any} */ done) {
      if (done.sources && cards.length === 0) this.setSources(done.sources);
      drawAnswer();
      answer.removeAttribute("aria-busy");
      answer.dataset.state = "done";
      meta.textContent = `${done.model} · ${done.latency} ms (retrieval ${done.metadata.retrievalTime} ms, generation ${done.metadata.generationTime} ms) · ${done.metadata.tokensUsed} tokens · ${done.retrievedChunks} chunks retrieved`;
    },
    stopped() {
      drawAnswer();
      answer.removeAttribute("aria-busy");
      answer.dataset.state = "stopped";
      meta.textContent = "Stopped.";
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Embed

/** Asks for a preview grant and opens the demo page with it; a blocked pop-up leaves a link instead. */
function previewButton(/** @type {any} */ agent, /** @type {HTMLElement} */ status) {
  const button = h("button", { type: "button", class: "small", text: "Preview on the demo page" });
  button.addEventListener("click", async () => {
    try {
      const grant = await api("POST", `/agents/${agent.id}/preview/`);
      const opened = window.open(grant.url, "_blank");
      if (opened) opened.opener = null;
      else
        replace(
          status,
          h("a", { href: grant.url, target: "_blank", rel: "noopener", text: "Open the preview" }),
        );
    } catch (error) {
      status.textContent = error instanceof Error ? error.message : String(error);
    }
  });
  return button;
}

function renderEmbed(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const snippet = `<script src="${location.origin}/widget.js" data-widget-id="${agent.widgetId}" async></script>`;
  const cspSnippet = `<script src="${location.origin}/widget.js" data-widget-id="${agent.widgetId}" nonce="YOUR-PAGE-NONCE" async></script>`;
  const policy = `script-src 'self' 'nonce-YOUR-PAGE-NONCE' ${location.origin}; connect-src 'self' ${location.origin}; img-src 'self' data: https:`;
  const status = statusLine();
  const mcpStatus = statusLine();
  const previewStatus = statusLine();
  const copyButton = (/** @type {string} */ text, /** @type {string} */ label, where = status) => {
    const button = h("button", { type: "button", class: "small", text: label });
    button.addEventListener("click", () => copyText(text, where));
    return button;
  };
  const origins = agent.allowedOrigins;
  const mcpUrl = `${location.origin}${document.body.dataset.apiPrefix || "/api"}/agents/${agent.id}/mcp/`;
  const serverName = `lore-${
    agent.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "agent"
  }`;
  const mcpConfig = JSON.stringify(
    {
      mcpServers: {
        [serverName]: { type: "http", url: mcpUrl, headers: { Authorization: "Bearer lore_sk_…" } },
      },
    },
    null,
    2,
  );
  replace(
    panel,
    h("h2", { text: "Add the widget to your site" }),
    h("p", { text: "Paste this before </body> on every page that should show the assistant:" }),
    h("pre", { class: "snippet" }, h("code", { dataset: { snippet: "embed" }, text: snippet })),
    h("div", { class: "actions" }, copyButton(snippet, "Copy snippet"), status),
    h("h3", { text: "Strict Content-Security-Policy" }),
    h("p", {
      text: "The widget needs no 'unsafe-inline' and no 'unsafe-eval': its styles live in its own shadow root as constructable stylesheets. Give the tag your page's nonce and allow this server:",
    }),
    h("pre", { class: "snippet" }, h("code", { text: cspSnippet })),
    h("pre", { class: "snippet" }, h("code", { text: `Content-Security-Policy: ${policy}` })),
    h(
      "div",
      { class: "actions" },
      copyButton(cspSnippet, "Copy CSP snippet"),
      copyButton(policy, "Copy policy"),
    ),
    h("h3", { text: "Allowed origins" }),
    origins.length > 0
      ? h("ul", null, ...origins.map((/** @type {string} */ o) => h("li", null, h("code", { text: o }))))
      : h("p", {
          class: "warning",
          text: "No origins are allowed yet: the widget works nowhere but in a preview. Add your site's origin under Settings → Allowed origins.",
        }),
    h("h3", { text: "Try it on the demo page" }),
    h("p", {
      text: "A preview shows this agent on the server's demo page for an hour, whatever the allowed origins say.",
    }),
    h("div", { class: "actions" }, previewButton(agent, previewStatus), previewStatus),
    h("h3", { text: "AI agents (MCP)" }),
    h("p", {
      text: "Claude Code, Cursor, VS Code and other MCP clients can search and ask this agent's knowledge base through its MCP server (tools search, ask and list_sources; documents as resources):",
    }),
    h("pre", { class: "snippet" }, h("code", { dataset: { snippet: "mcp-url" }, text: mcpUrl })),
    h("p", {
      text: "Client configuration: create a key under API keys and put it in place of lore_sk_….",
    }),
    h("pre", { class: "snippet" }, h("code", { dataset: { snippet: "mcp-config" }, text: mcpConfig })),
    h(
      "div",
      { class: "actions" },
      copyButton(mcpUrl, "Copy MCP URL", mcpStatus),
      copyButton(mcpConfig, "Copy configuration", mcpStatus),
      mcpStatus,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// API keys

function renderKeys(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const list = h("div", { class: "keys" });
  const reveal = h("div", { class: "key-reveal-slot" });
  const status = statusLine();
  const name = h("input", { name: "name", value: "Server key", maxlength: "100" });
  const submit = h("button", { type: "submit", class: "primary", text: "Create key" });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "new-key-title", novalidate: true },
    h("h2", { id: "new-key-title", text: "New API key" }),
    h("p", {
      class: "muted",
      text: "A key gives full access to this agent only (settings, questions, conversations, analytics). Keep it on your server.",
    }),
    field("Key name", name),
    h("div", { class: "actions" }, submit),
  );

  const load = async () => {
    try {
      const keys = await api("GET", `/agents/${agent.id}/api-keys/`);
      const rows = keys.results.map((/** @type {any} */ key) => {
        const revoke = h("button", {
          type: "button",
          class: "small danger",
          text: "Revoke",
          "aria-label": `Revoke ${key.name}`,
        });
        revoke.addEventListener("click", async () => {
          if (!confirm(`Revoke the key “${key.name}”? Programs using it stop working at once.`)) return;
          try {
            await api("DELETE", `/agents/${agent.id}/api-keys/${key.id}/`);
            status.textContent = `Key “${key.name}” revoked.`;
            await load();
          } catch (error) {
            showError(list, error);
          }
        });
        return [
          key.name,
          h("code", { text: `${key.prefix}…` }),
          timeAgo(key.createdAt),
          timeAgo(key.lastUsedAt),
          revoke,
        ];
      });
      replace(list, table(`Keys (${keys.count})`, ["Name", "Key", "Created", "Last used", ""], rows));
    } catch (error) {
      replace(list, errorBox(error));
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    try {
      const created = await api("POST", `/agents/${agent.id}/api-keys/`, { body: { name: name.value } });
      const copyStatus = statusLine();
      const copy = h("button", { type: "button", class: "primary", text: "Copy key" });
      copy.addEventListener("click", () => copyText(created.key, copyStatus));
      const done = h("button", { type: "button", text: "I have stored it" });
      const box = h(
        "div",
        { class: "key-reveal", role: "region", "aria-labelledby": "key-reveal-title", tabindex: "-1" },
        h("h3", { id: "key-reveal-title", text: `Your new key “${created.name}”` }),
        h("p", { class: "warning", text: "Copy it now: it is shown only once and cannot be recovered." }),
        h("code", { class: "secret", dataset: { secret: "api-key" }, text: created.key }),
        h("div", { class: "actions" }, copy, done, copyStatus),
      );
      done.addEventListener("click", () => {
        replace(reveal);
        name.focus();
      });
      replace(reveal, box);
      box.focus();
      await load();
    } catch (error) {
      showError(form, error);
    } finally {
      submit.disabled = false;
    }
  });

  replace(panel, form, reveal, status, list);
  void load();
}

// ---------------------------------------------------------------------------------------------
// Analytics (the endpoint may not exist on every server)

function renderAnalyticsTab(/** @type {HTMLElement} */ panel, /** @type {any} */ agent) {
  const stats = h("div", { class: "analytics" }, h("p", { class: "loading", text: "Loading analytics…" }));
  const conversations = h("div", { class: "conversations" });
  replace(panel, stats, conversations);
  void (async () => {
    try {
      const data = await api("GET", `/analytics/agents/${agent.id}/`);
      replace(stats, renderAnalytics(data));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.details.resource === "endpoint") {
        replace(stats, h("p", { class: "empty", text: "Analytics are not available on this server yet." }));
      } else replace(stats, errorBox(error));
    }
  })();
  void (async () => {
    try {
      const list = await api("GET", `/agents/${agent.id}/conversations/?page_size=20`);
      replace(
        conversations,
        table(
          `Recent conversations (${list.count})`,
          ["Title", "Messages", "Last activity"],
          list.results.map((/** @type {any} */ c) => [
            c.title || "(untitled)",
            String(c.messageCount),
            timeAgo(c.updatedAt),
          ]),
        ),
      );
    } catch (error) {
      replace(conversations, errorBox(error));
    }
  })();
}

// ---------------------------------------------------------------------------------------------

window.addEventListener("hashchange", () => {
  if (loadSession()) void route();
});

if (loadSession()) void start();
else renderLogin();
