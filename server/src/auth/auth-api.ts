import {
  loginRequestSchema,
  loginResponseSchema,
  meResponseSchema,
  refreshRequestSchema,
  refreshResponseSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const login = apiRoute({
  method: "post",
  path: "/auth/login/",
  summary: "Log in with email and password",
  description: "Repeated failures for one account or IP are refused with 429 `rate_limited` for 15 minutes.",
  tag: "Auth",
  auth: "none",
  request: { body: jsonBody(loginRequestSchema.openapi("LoginRequest")) },
  responses: { 200: jsonResponse(loginResponseSchema) },
  errors: ["invalid_credentials"],
});

export const refreshToken = apiRoute({
  method: "post",
  path: "/auth/token/refresh/",
  summary: "Exchange a refresh token for a new access token (and a rotated refresh token)",
  description:
    "Refresh tokens are single-use: the presented one is spent and a new pair returned. Presenting a spent refresh token again is treated as a leak: 401 `invalid_token`, and every token of the user is revoked (as by logout).",
  tag: "Auth",
  auth: "none",
  request: { body: jsonBody(refreshRequestSchema.openapi("RefreshRequest")) },
  responses: { 200: jsonResponse(refreshResponseSchema.openapi("RefreshResponse")) },
  errors: ["invalid_token", "token_expired"],
});

export const logout = apiRoute({
  method: "post",
  path: "/auth/logout/",
  summary: "Invalidate every access and refresh token issued to the user so far",
  tag: "Auth",
  auth: "user",
  responses: { 204: noContent },
});

export const me = apiRoute({
  method: "get",
  path: "/auth/me/",
  summary: "The user, their workspaces and roles",
  tag: "Auth",
  auth: "user",
  responses: { 200: jsonResponse(meResponseSchema.openapi("Me")) },
});
