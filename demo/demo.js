// The demo page: fills the embed snippet with this server and agent, or explains that no agent exists yet.
const widgetId = document.body.dataset.widgetId ?? "";

const status = document.getElementById("widget-status");
if (status && widgetId === "") status.hidden = false;

const snippet = document.getElementById("embed-snippet");
if (snippet) {
  const id = widgetId || "wgt_…";
  snippet.textContent = `<script src="${location.origin}/widget.js" data-widget-id="${id}" async></script>`;
}
