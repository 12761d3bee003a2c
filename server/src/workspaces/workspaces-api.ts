import {
  addMemberRequestSchema,
  createWorkspaceRequestSchema,
  invitationCreatedSchema,
  invitationPreviewSchema,
  invitationSchema,
  invitationSignupRequestSchema,
  memberSchema,
  modelProviderSchema,
  pageSchema,
  providerModelsSchema,
  sessionResponseSchema,
  testModelRequestSchema,
  testModelResponseSchema,
  updateMemberRequestSchema,
  updateModelProviderRequestSchema,
  workspaceSchema,
} from "@lore/shared";
import { apiRoute, jsonBody, jsonResponse, noContent } from "../http/route.ts";

export const listWorkspaces = apiRoute({
  method: "get",
  path: "/workspaces/",
  summary: "List the caller's workspaces with their role",
  tag: "Workspaces",
  auth: "user",
  responses: { 200: jsonResponse(pageSchema(workspaceSchema).openapi("WorkspacePage")) },
});

export const createWorkspace = apiRoute({
  method: "post",
  path: "/workspaces/",
  summary: "Create a workspace (the caller becomes its owner)",
  tag: "Workspaces",
  auth: "user",
  request: { body: jsonBody(createWorkspaceRequestSchema.openapi("CreateWorkspace")) },
  responses: { 201: jsonResponse(workspaceSchema) },
});

export const listMembers = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/members/",
  summary: "List members",
  tag: "Workspaces",
  auth: "user",
  role: "viewer",
  responses: { 200: jsonResponse(pageSchema(memberSchema).openapi("MemberPage")) },
});

export const inviteMember = apiRoute({
  method: "post",
  path: "/workspaces/{workspaceId}/members/",
  summary: "Invite someone by email; they join only when they accept",
  description:
    "The answer is the same whether the email belongs to a user or not: 201 with the pending invitation, which the invitee sees in `GET /auth/me/` and accepts or declines. When the server has SMTP settings it e-mails the invitee the console's link to it (`emailed`). Only owners invite owners. Already a member, or already invited: 409.",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(addMemberRequestSchema.openapi("InviteMember")) },
  responses: { 201: jsonResponse(invitationCreatedSchema) },
  errors: ["conflict"],
});

export const listInvitations = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/invitations/",
  summary: "List the workspace's pending invitations",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  responses: { 200: jsonResponse(pageSchema(invitationSchema).openapi("InvitationPage")) },
});

export const revokeInvitation = apiRoute({
  method: "delete",
  path: "/workspaces/{workspaceId}/invitations/{invitationId}/",
  summary: "Take back a pending invitation",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  responses: { 204: noContent },
});

export const acceptInvitation = apiRoute({
  method: "post",
  path: "/invitations/{invitationId}/accept/",
  summary: "Accept an invitation to the caller's email: join the workspace with the invited role",
  description:
    "An invitation to another email, expired or already answered is 404. If the inviter is no longer a member, or no longer holds a role that may grant the invited one (admin; owner for owner), 403.",
  tag: "Workspaces",
  auth: "user",
  responses: { 200: jsonResponse(workspaceSchema) },
});

export const declineInvitation = apiRoute({
  method: "post",
  path: "/invitations/{invitationId}/decline/",
  summary: "Decline an invitation to the caller's email",
  description: "An invitation to another email, expired or already answered is 404.",
  tag: "Workspaces",
  auth: "user",
  responses: { 204: noContent },
});

export const updateMember = apiRoute({
  method: "patch",
  path: "/workspaces/{workspaceId}/members/{userId}/",
  summary: "Change a member's role",
  description: "Only owners grant or change the owner role; the last owner cannot be demoted (409).",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(updateMemberRequestSchema.openapi("UpdateMember")) },
  responses: { 200: jsonResponse(memberSchema) },
  errors: ["conflict"],
});

export const removeMember = apiRoute({
  method: "delete",
  path: "/workspaces/{workspaceId}/members/{userId}/",
  summary: "Remove a member (any member may remove themselves)",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  responses: { 204: noContent },
  errors: ["conflict"],
});

export const getModelProvider = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/model-provider/",
  summary: "The workspace's model server (its key masked) and whether the environment's wins",
  tag: "Workspaces",
  auth: "user",
  role: "viewer",
  responses: { 200: jsonResponse(modelProviderSchema) },
});

export const setModelProvider = apiRoute({
  method: "put",
  path: "/workspaces/{workspaceId}/model-provider/",
  summary: "Connect the workspace to OpenAI or an OpenAI-compatible server (the key is stored encrypted)",
  description:
    "`kind: none` disconnects. An omitted `apiKey` keeps the stored one; an empty one removes it. A compatible `baseUrl` on a loopback or private address is refused (`400`) unless `LORE_OUTBOUND_ALLOWLIST` names it.",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(updateModelProviderRequestSchema) },
  responses: { 200: jsonResponse(modelProviderSchema) },
});

export const listProviderModels = apiRoute({
  method: "get",
  path: "/workspaces/{workspaceId}/model-provider/models/",
  summary: "Ask the workspace's model server for its chat models now",
  description:
    "The server's own error (a wrong key, an unknown URL) is a `502 upstream_error` carrying its words.",
  tag: "Workspaces",
  auth: "user",
  role: "editor",
  responses: { 200: jsonResponse(providerModelsSchema) },
  errors: ["upstream_error"],
});

export const testModel = apiRoute({
  method: "post",
  path: "/workspaces/{workspaceId}/model-provider/test/",
  summary: "Send one question straight to a model of the workspace's model server and return its answer",
  description:
    "No sources, nothing stored. The model server's error is a `502 upstream_error` carrying its words.",
  tag: "Workspaces",
  auth: "user",
  role: "editor",
  request: { body: jsonBody(testModelRequestSchema) },
  responses: { 200: jsonResponse(testModelResponseSchema) },
  errors: ["upstream_error"],
});

export const previewInvitation = apiRoute({
  method: "get",
  path: "/invitations/{invitationId}/",
  summary: "What an invitation link opens: the workspace, the invited email and whether it has an account",
  description:
    "No login needed: the link itself went to the invitee. Unknown, expired, revoked or answered: 404.",
  tag: "Workspaces",
  auth: "none",
  responses: { 200: jsonResponse(invitationPreviewSchema) },
});

export const signUpFromInvitation = apiRoute({
  method: "post",
  path: "/invitations/{invitationId}/signup/",
  summary: "Create the invited email's account (name and password), join the workspace and start a session",
  description:
    "For an email without an account (one with an account: 409, log in and accept). The password policy applies (400 `details.fields.password`). Answers as `POST /auth/session/`: the access token in the body, the refresh token in the session cookie.",
  tag: "Workspaces",
  auth: "none",
  request: { body: jsonBody(invitationSignupRequestSchema) },
  responses: { 200: jsonResponse(sessionResponseSchema) },
  errors: ["conflict"],
});
