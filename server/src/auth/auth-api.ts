import {
  loginRequestSchema,
  loginResponseSchema,
  meResponseSchema,
  refreshRequestSchema,
  refreshResponseSchema,
  sessionRequestSchema,
  sessionResponseSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent, SMALL_BODY_BYTES } from "../http/route.ts";

export const login = apiRoute({
  method: "post",
  path: "/auth/login/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary: "Log in with email and password",
  description:
    "The Authorization header is ignored. Failed logins: after `LORE_LIMIT_LOGIN_FAILURES` from one IP for one account, that pair is refused (429 `rate_limited`, `details.limit` `login_failures_per_account_ip`) for 15 minutes; one IP failing 5× as often across accounts is refused (`login_failures_per_ip`). Past the limit, an account's logins from anywhere are slowed down (the answer waits 0.25 s, doubling with each further failure, at most 10 s) but never refused: the right password from a clean IP gets in.",
  tag: "Auth",
  auth: "none",
  ignoresAuthorization: true,
  request: { body: jsonBody(loginRequestSchema.openapi("LoginRequest")) },
  responses: { 200: jsonResponse(loginResponseSchema) },
  errors: ["invalid_credentials"],
});

export const refreshToken = apiRoute({
  method: "post",
  path: "/auth/token/refresh/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary: "Exchange a refresh token for a new access token",
  description:
    "The Authorization header is ignored. By default the refresh token stays valid until it expires or the user logs out, and the answer is `{access}`. With `LORE_REFRESH_ROTATION=true` the answer is `{access, refresh}` and the presented token is spent: presenting it again within `LORE_REFRESH_REUSE_GRACE` seconds (60; two tabs refreshing at once) gets a new pair too, later it is treated as a leak: 401 `invalid_token`, and every token of the user is revoked (as by logout).",
  tag: "Auth",
  auth: "none",
  ignoresAuthorization: true,
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
  summary: "The user, their workspaces and roles, and their pending invitations",
  tag: "Auth",
  auth: "user",
  responses: { 200: jsonResponse(meResponseSchema.openapi("Me")) },
});

const sessionCookieNote =
  "The refresh token travels only in the `lore_session` cookie (`HttpOnly; SameSite=Strict; Path=<prefix>/auth/session/`, `Secure` over HTTPS), never in the body, so no script on the page can read it. The Authorization header is ignored. The body must be JSON (415 otherwise): with SameSite=Strict and no `Access-Control-Allow-Credentials`, another site can neither send the cookie nor read the answer.";

export const sessionLogin = apiRoute({
  method: "post",
  path: "/auth/session/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary: "Log in for a browser session: the access token in the body, the refresh token in a cookie",
  description: `Login as \`POST /auth/login/\` (same body, throttling and errors), for the console. ${sessionCookieNote}`,
  tag: "Auth",
  auth: "none",
  ignoresAuthorization: true,
  request: { body: jsonBody(loginRequestSchema.openapi("LoginRequest")) },
  responses: { 200: jsonResponse(sessionResponseSchema) },
  errors: ["invalid_credentials"],
});

export const sessionRefresh = apiRoute({
  method: "post",
  path: "/auth/session/refresh/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary: "A new access token from the session cookie (every tab of the browser shares it)",
  description: `Body \`{}\`. No cookie: 401 \`not_authenticated\`; a cookie from before a logout, forged or replayed: 401 \`invalid_token\`; expired: 401 \`token_expired\` (the cookie is cleared on every 401). With \`LORE_REFRESH_ROTATION=true\` the cookie is replaced by a new refresh token, as \`POST /auth/token/refresh/\` rotates. ${sessionCookieNote}`,
  tag: "Auth",
  auth: "none",
  ignoresAuthorization: true,
  request: { body: jsonBody(sessionRequestSchema) },
  responses: { 200: jsonResponse(sessionResponseSchema) },
  errors: ["not_authenticated", "invalid_token", "token_expired"],
});

export const sessionLogout = apiRoute({
  method: "post",
  path: "/auth/session/logout/",
  maxBodyBytes: SMALL_BODY_BYTES,
  summary: "End the browser session: revoke every token of the cookie's user and clear the cookie",
  description: `Body \`{}\`. A valid cookie revokes every access and refresh token of its user (as \`POST /auth/logout/\`, so the other tabs are signed out at their next request); the cookie is cleared in every case, also when it is missing or no longer valid (204 all the same). ${sessionCookieNote}`,
  tag: "Auth",
  auth: "none",
  ignoresAuthorization: true,
  request: { body: jsonBody(sessionRequestSchema) },
  responses: { 204: noContent },
});
