import {
  conversationDetailSchema,
  conversationListQuerySchema,
  conversationSchema,
  pageSchema,
  updateConversationRequestSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const listConversations = apiRoute({
  method: "get",
  path: "/agents/{agentId}/conversations/",
  summary:
    "List conversations, newest activity first (filters: feedback, unanswered, outcome, handoff, status, q)",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  request: { query: conversationListQuerySchema },
  responses: { 200: jsonResponse(pageSchema(conversationSchema).openapi("ConversationPage")) },
  errors: ["validation_error"],
});

export const getConversation = apiRoute({
  method: "get",
  path: "/agents/{agentId}/conversations/{conversationId}/",
  summary: "A conversation with its messages",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  responses: { 200: jsonResponse(conversationDetailSchema) },
});

export const deleteConversation = apiRoute({
  method: "delete",
  path: "/agents/{agentId}/conversations/{conversationId}/",
  summary: "Delete a conversation and its messages",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  responses: { 204: noContent },
});

export const updateConversation = apiRoute({
  method: "patch",
  path: "/agents/{agentId}/conversations/{conversationId}/",
  summary: "Resolve a conversation (or open it again)",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(updateConversationRequestSchema) },
  responses: { 200: jsonResponse(conversationSchema) },
});
