import {
  addMemberRequestSchema,
  createWorkspaceRequestSchema,
  invitationSchema,
  memberSchema,
  pageSchema,
  updateMemberRequestSchema,
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
    "The answer is the same whether the email belongs to a user or not: 201 with the pending invitation, which the invitee sees in `GET /auth/me/` and accepts or declines. Only owners invite owners. Already a member, or already invited: 409.",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(addMemberRequestSchema.openapi("InviteMember")) },
  responses: { 201: jsonResponse(invitationSchema) },
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
