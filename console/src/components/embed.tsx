import type { Agent, PreviewGrant } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { api, apiPrefix, messageOf } from "../api.ts";
import { SiteOrigins } from "./embed-origins.tsx";
import { CopyButton, Status } from "./ui.tsx";

/** Asks for a preview grant and opens the demo page with it; a blocked pop-up leaves a link instead. */
function PreviewButton(props: { agent: Agent }) {
  const status = useSignal("");
  const link = useSignal<string | null>(null);
  const preview = async () => {
    try {
      const grant = await api<PreviewGrant>("POST", `/agents/${props.agent.id}/preview/`);
      const opened = window.open(grant.url, "_blank");
      if (opened) opened.opener = null;
      else link.value = grant.url;
    } catch (error) {
      status.value = messageOf(error);
    }
  };
  return (
    <div class="actions">
      <button type="button" class="small" onClick={preview}>
        Preview on the demo page
      </button>
      <Status>
        {link.value ? (
          <a href={link.value} target="_blank" rel="noopener">
            Open the preview
          </a>
        ) : (
          status.value
        )}
      </Status>
    </div>
  );
}

export function EmbedTab(props: { agent: Agent }) {
  const { agent } = props;
  const status = useSignal("");
  const mcpStatus = useSignal("");
  const origin = location.origin;
  // The server's root as this browser reached it: the console is at <root>/console/ (a proxy's path prefix included).
  const root = new URL("..", location.href).href.replace(/\/$/, "");
  const snippet = `<script src="${root}/widget.js" data-widget-id="${agent.widgetId}" async></script>`;
  const cspSnippet = `<script src="${root}/widget.js" data-widget-id="${agent.widgetId}" nonce="YOUR-PAGE-NONCE" async></script>`;
  const policy = `script-src 'self' 'nonce-YOUR-PAGE-NONCE' ${origin}; connect-src 'self' ${origin}; img-src 'self' data: https:`;
  // apiPrefix is the API's path as this browser reaches it (the server writes it with any proxy prefix).
  const mcpUrl = `${origin}${apiPrefix}/agents/${agent.id}/mcp/`;
  const slug =
    agent.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "agent";
  const mcpConfig = JSON.stringify(
    {
      mcpServers: {
        [`lore-${slug}`]: { type: "http", url: mcpUrl, headers: { Authorization: "Bearer lore_sk_…" } },
      },
    },
    null,
    2,
  );
  return (
    <>
      <h2>Add the widget to your site</h2>
      <p>Paste this before &lt;/body&gt; on every page that should show the assistant:</p>
      <pre class="snippet">
        <code data-snippet="embed">{snippet}</code>
      </pre>
      <div class="actions">
        <CopyButton text={snippet} label="Copy snippet" status={status} />
        <Status>{status.value}</Status>
      </div>
      <SiteOrigins agent={agent} />
      <h3>Strict Content-Security-Policy</h3>
      <p>
        The widget needs no 'unsafe-inline' and no 'unsafe-eval': its styles live in its own shadow root as
        constructable stylesheets. Give the tag your page's nonce and allow this server:
      </p>
      <pre class="snippet">
        <code>{cspSnippet}</code>
      </pre>
      <pre class="snippet">
        <code>Content-Security-Policy: {policy}</code>
      </pre>
      <div class="actions">
        <CopyButton text={cspSnippet} label="Copy CSP snippet" status={status} />
        <CopyButton text={policy} label="Copy policy" status={status} />
      </div>
      <h3>Try it on the demo page</h3>
      <p>
        A preview shows this agent on the server's demo page for an hour, whatever the allowed origins say.
      </p>
      <PreviewButton agent={agent} />
      <h3>AI agents (MCP)</h3>
      <p>
        Claude Code, Cursor, VS Code and other MCP clients can search and ask this agent's knowledge base
        through its MCP server (tools search, ask and list_sources; documents as resources):
      </p>
      <pre class="snippet">
        <code data-snippet="mcp-url">{mcpUrl}</code>
      </pre>
      <p>Client configuration: create a key under API keys and put it in place of lore_sk_….</p>
      <pre class="snippet">
        <code data-snippet="mcp-config">{mcpConfig}</code>
      </pre>
      <div class="actions">
        <CopyButton text={mcpUrl} label="Copy MCP URL" status={mcpStatus} />
        <CopyButton text={mcpConfig} label="Copy configuration" status={mcpStatus} />
        <Status>{mcpStatus.value}</Status>
      </div>
    </>
  );
}
