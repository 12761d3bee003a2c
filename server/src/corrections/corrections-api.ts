import {
  correctionMatchesQuerySchema,
  correctionMatchesSchema,
  correctionSchema,
  correctMessageRequestSchema,
  createCorrectionRequestSchema,
  pageQuerySchema,
  pageSchema,
  updateCorrectionRequestSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const correctMessage = apiRoute({
  method: "post",
  path: "/agents/{agentId}/messages/{messageId}/correction/",
  summary: "Correct an answer: store a question/answer pair (the question defaults to the visitor's)",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(correctMessageRequestSchema) },
  responses: { 201: jsonResponse(correctionSchema) },
});

export const createCorrection = apiRoute({
  method: "post",
  path: "/agents/{agentId}/corrections/",
  summary: "Add a question/answer pair the agent answers from",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(createCorrectionRequestSchema) },
  responses: { 201: jsonResponse(correctionSchema) },
});

export const listCorrections = apiRoute({
  method: "get",
  path: "/agents/{agentId}/corrections/",
  summary: "List an agent's corrections, newest first",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(correctionSchema).openapi("CorrectionPage")) },
  errors: ["validation_error"],
});

export const getCorrection = apiRoute({
  method: "get",
  path: "/agents/{agentId}/corrections/{correctionId}/",
  summary: "Get a correction",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  responses: { 200: jsonResponse(correctionSchema) },
});

export const updateCorrection = apiRoute({
  method: "patch",
  path: "/agents/{agentId}/corrections/{correctionId}/",
  summary: "Edit a correction's question or answer",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  request: { body: jsonBody(updateCorrectionRequestSchema) },
  responses: { 200: jsonResponse(correctionSchema) },
});

export const deleteCorrection = apiRoute({
  method: "delete",
  path: "/agents/{agentId}/corrections/{correctionId}/",
  summary: "Delete a correction",
  tag: "Conversations",
  auth: "user-or-key",
  role: "editor",
  responses: { 204: noContent },
});

export const correctionMatches = apiRoute({
  method: "get",
  path: "/agents/{agentId}/corrections/{correctionId}/matches/",
  summary:
    "Recent visitor questions the correction would answer, and ones sharing its words that it would not (the same matching the answer path applies)",
  tag: "Conversations",
  auth: "user-or-key",
  role: "viewer",
  request: { query: correctionMatchesQuerySchema },
  responses: { 200: jsonResponse(correctionMatchesSchema) },
  errors: ["validation_error"],
});
