import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../errors.ts";
import type { SourcesService } from "../sources/sources-service.ts";
import type { AgentRecord, DataSourceRecord, DocumentRecord } from "../store/records.ts";
import { CHUNKS_PER_PAGE, renderPage } from "./document-pages.ts";
import { RESOURCE_NOT_FOUND, rpcError } from "./mcp-errors.ts";
import type { McpDeps } from "./mcp-server.ts";

/** Resources listed per page (the cursor is the next offset). */
const RESOURCES_PER_PAGE = 100;

const documentUri = (agentId: string, documentId: string, page = 1) =>
  `lore://agents/${agentId}/documents/${documentId}${page > 1 ? `?page=${page}` : ""}`;
const DOCUMENT_URI = /^lore:\/\/agents\/([0-9a-f-]{36})\/documents\/([0-9a-f-]{36})(?:\?page=(\d{1,6}))?$/i;

/** The agent's live sources, through the sources service. */
export function agentSources(sources: SourcesService, agent: AgentRecord): DataSourceRecord[] {
  const attached = new Set(agent.dataSourceIds);
  return sources.list(new Set([agent.workspaceId]), {}).filter((s) => attached.has(s.id));
}

export function documentTemplates(agent: AgentRecord): ResourceTemplate[] {
  return [
    {
      uriTemplate: `lore://agents/${agent.id}/documents/{documentId}{?page}`,
      name: "document",
      title: "An indexed document",
      description: `A document of "${agent.name}"'s knowledge base as indexed, ${CHUNKS_PER_PAGE} chunks a page (\`?page=2\`…).`,
      mimeType: "text/markdown",
    },
  ];
}

/** One page of the agent's indexed documents, in a stable order (source by source). */
export function listDocuments(
  sources: SourcesService,
  agent: AgentRecord,
  cursor: string | undefined,
): { resources: Resource[]; nextCursor?: string } {
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw rpcError(
      new AppError("validation_error", "The cursor is invalid", { fields: { cursor: ["unknown cursor"] } }),
    );
  }
  const live = agentSources(sources, agent);
  const names = new Map(live.map((s) => [s.id, s.name]));
  const docs = live.flatMap((s) => sources.documents(s.id).filter((d) => d.status === "indexed"));
  const end = offset + RESOURCES_PER_PAGE;
  return {
    resources: docs.slice(offset, end).map((d) => ({
      uri: documentUri(agent.id, d.id),
      name: d.title,
      title: d.title,
      description: [names.get(d.dataSourceId) ?? "source", d.kind, d.sourceUrl].filter(Boolean).join(" · "),
      mimeType: "text/markdown",
      size: d.bytes,
    })),
    ...(end < docs.length ? { nextCursor: String(end) } : {}),
  };
}

function resourceNotFound(uri: string) {
  return rpcError(
    new AppError("not_found", "resource not found", { resource: "document", id: uri }),
    RESOURCE_NOT_FOUND,
  );
}

/** The agent's document named by the URI, or -32002. */
function documentOf(deps: McpDeps, agent: AgentRecord, uri: string): { doc: DocumentRecord; page: number } {
  const match = DOCUMENT_URI.exec(uri);
  const doc = match?.[2] ? deps.answerDeps.store.documents.get(match[2].toLowerCase()) : undefined;
  const live = new Set(agentSources(deps.sources, agent).map((s) => s.id));
  if (!match || match[1]?.toLowerCase() !== agent.id || !doc || !live.has(doc.dataSourceId)) {
    throw resourceNotFound(uri);
  }
  return { doc, page: Number(match[3] ?? "1") };
}

/** One page of a document as Markdown; `_meta.next` names the next page while there is one. */
export async function readDocument(
  deps: McpDeps,
  agent: AgentRecord,
  uri: string,
): Promise<ReadResourceResult> {
  const { doc, page } = documentOf(deps, agent, uri);
  const chunks = (await deps.answerDeps.index.readDocumentChunks([doc.id])).get(doc.id) ?? [];
  const pageCount = Math.max(1, Math.ceil(chunks.length / CHUNKS_PER_PAGE));
  if (page < 1 || page > pageCount) throw resourceNotFound(uri);
  const start = (page - 1) * CHUNKS_PER_PAGE;
  const body = renderPage(chunks.slice(start, start + CHUNKS_PER_PAGE), chunks[start - 1]);
  const next = page < pageCount ? documentUri(agent.id, doc.id, page + 1) : undefined;
  const more = next ? `\n\n(Page ${page} of ${pageCount}; read ${next} for more.)` : "";
  return {
    contents: [
      {
        uri,
        mimeType: "text/markdown",
        text: `# ${doc.title}\n${doc.sourceUrl ? `\n${doc.sourceUrl}\n` : ""}\n${body}${more}`,
        _meta: { page, pageCount, ...(next ? { next } : {}) },
      },
    ],
  };
}
