import {
  addMemberRequestSchema,
  createWorkspaceRequestSchema,
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

export const addMember = apiRoute({
  method: "post",
  path: "/workspaces/{workspaceId}/members/",
  summary: "Add an existing user by email",
  description: "Only owners may add owners. Unknown email → 400 with `details.fields.email`.",
  tag: "Workspaces",
  auth: "user",
  role: "admin",
  request: { body: jsonBody(addMemberRequestSchema.openapi("AddMember")) },
  responses: { 201: jsonResponse(memberSchema) },
  errors: ["conflict"],
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
