// The demo page: fills the embed snippet with this server and agent, or explains how to show one
// (a preview opened from the console) or that the preview link has expired.
const widgetId = document.body.dataset.widgetId ?? "";
const pageState = document.body.dataset.pageState ?? "empty";

const status = document.getElementById("widget-status");
if (status && widgetId === "") {
  status.hidden = false;
  for (const p of status.querySelectorAll("[data-state]")) {
    if (p instanceof HTMLElement)
      p.hidden = p.dataset.state !== (pageState === "preview-expired" ? pageState : "empty");
  }
}

const snippet = document.getElementById("embed-snippet");
if (snippet) {
  const id = widgetId || "wgt_…";
  snippet.textContent = `<script src="${new URL("widget.js", location.href).href}" data-widget-id="${id}" async></script>`;
}
