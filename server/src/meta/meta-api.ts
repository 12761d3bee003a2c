import {
  healthSchema,
  modelsQuerySchema,
  modelsResponseSchema,
  openApiDocumentSchema,
  readinessSchema,
} from "@lore/shared";
import { apiRoute, jsonResponse } from "../http/route.ts";

export const health = apiRoute({
  method: "get",
  path: "/healthz",
  root: true,
  summary: "Liveness: the process answers; the event loop's recent delay (p99) and its last stall",
  tag: "Meta",
  auth: "none",
  responses: { 200: jsonResponse(healthSchema) },
});

export const readiness = apiRoute({
  method: "get",
  path: "/readyz",
  root: true,
  summary: "Readiness: the store is open and migrated, and the process is not shutting down",
  tag: "Meta",
  auth: "none",
  errors: ["service_unavailable"],
  responses: { 200: jsonResponse(readinessSchema) },
});

export const openApiDocument = apiRoute({
  method: "get",
  path: "/openapi.json",
  summary: "This OpenAPI 3.1 document",
  tag: "Meta",
  auth: "none",
  responses: { 200: jsonResponse(openApiDocumentSchema) },
});

export const listModels = apiRoute({
  method: "get",
  path: "/models/",
  summary:
    "The chat models an agent's `model` may name (the model server's list, asked at most once a minute) and whether embeddings exist",
  tag: "Meta",
  auth: "user",
  request: { query: modelsQuerySchema },
  responses: { 200: jsonResponse(modelsResponseSchema) },
});
