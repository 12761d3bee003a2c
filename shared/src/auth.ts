import { z } from "@hono/zod-openapi";
import { idSchema } from "./common.ts";

export const roleSchema = z.enum(["owner", "admin", "editor", "viewer"]);
export type Role = z.infer<typeof roleSchema>;

export const userSchema = z
  .object({ id: idSchema, email: z.string(), firstName: z.string(), lastName: z.string() })
  .openapi("User");
export type User = z.infer<typeof userSchema>;

export const loginRequestSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  password: z.string().min(1).max(1024),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const loginResponseSchema = z
  .object({ access: z.string(), refresh: z.string(), user: userSchema })
  .openapi("LoginResponse");
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const refreshRequestSchema = z.object({ refresh: z.string().min(1) });
export const refreshResponseSchema = z.object({
  access: z.string(),
  refresh: z.string().optional().openapi({
    description: "only with rotation on (`LORE_REFRESH_ROTATION`): the refresh token to use next",
  }),
});
export type RefreshResponse = z.infer<typeof refreshResponseSchema>;

/** The console's session: the access token in the body, the refresh token only in an HttpOnly cookie. */
export const sessionResponseSchema = z
  .object({ access: z.string(), user: userSchema })
  .openapi("SessionResponse");
export type SessionResponse = z.infer<typeof sessionResponseSchema>;
/** The cookie routes take an empty JSON object: the JSON content type is their CSRF guard. */
export const sessionRequestSchema = z.object({}).openapi("SessionRequest");

export const workspaceSchema = z
  .object({
    id: idSchema,
    name: z.string(),
    role: roleSchema,
    createdAt: z.string(),
  })
  .openapi("Workspace");
export type Workspace = z.infer<typeof workspaceSchema>;

/** A pending invitation to join a workspace; it becomes a membership only when the invitee accepts. */
export const invitationSchema = z
  .object({
    id: idSchema,
    workspaceId: idSchema,
    workspaceName: z.string(),
    email: z.string(),
    role: roleSchema,
    /** The inviter's email. */
    invitedBy: z.string(),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .openapi("Invitation");
export type Invitation = z.infer<typeof invitationSchema>;

/** `POST /workspaces/{workspaceId}/members/`: the invitation, and whether the invitee was e-mailed its link. */
export const invitationCreatedSchema = invitationSchema
  .extend({
    emailed: z.enum(["sent", "failed", "off"]).openapi({
      description:
        "`sent`: the SMTP server took the e-mail with the invitation link; `failed`: it refused it or could not be reached (the server logs why); `off`: the server sends no e-mail (LORE_SMTP_URL is not set). The link works either way",
    }),
  })
  .openapi("InvitationCreated");
export type InvitationCreated = z.infer<typeof invitationCreatedSchema>;

export const meResponseSchema = z.object({
  user: userSchema,
  workspaces: z.array(workspaceSchema),
  invitations: z.array(invitationSchema).openapi({ description: "pending invitations to the user's email" }),
});
export type Me = z.infer<typeof meResponseSchema>;

export const memberSchema = z
  .object({
    userId: idSchema,
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    role: roleSchema,
  })
  .openapi("Member");
export type Member = z.infer<typeof memberSchema>;
export const addMemberRequestSchema = z.object({
  email: z.string().trim().toLowerCase().email(),
  role: roleSchema,
});
export const updateMemberRequestSchema = z.object({ role: roleSchema });
export const createWorkspaceRequestSchema = z.object({ name: z.string().trim().min(1).max(200) });

/** `GET /invitations/{invitationId}/`: what the invitation link opens, without logging in. */
export const invitationPreviewSchema = z
  .object({
    workspaceName: z.string(),
    email: z.string(),
    role: roleSchema,
    invitedBy: z.string(),
    expiresAt: z.string(),
    accountExists: z.boolean().openapi({ description: "the email has an account: log in to accept" }),
  })
  .openapi("InvitationPreview");
export type InvitationPreview = z.infer<typeof invitationPreviewSchema>;

/** `POST /invitations/{invitationId}/signup/`: a new person's account for the invited email. */
export const invitationSignupRequestSchema = z
  .object({
    firstName: z.string().trim().min(1).max(100),
    lastName: z.string().trim().max(100).default(""),
    password: z.string().min(1).max(1024),
  })
  .strict()
  .openapi("InvitationSignup");
export type InvitationSignupRequest = z.input<typeof invitationSignupRequestSchema>;
