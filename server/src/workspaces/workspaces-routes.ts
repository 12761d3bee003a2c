import { publicRoot } from "../http/forwarded.ts";
import { wholePage } from "../http/pagination.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import { mailInvitation } from "./invitation-mail.ts";
import * as api from "./workspaces-api.ts";

export function workspacesRoutes({
  access,
  workspaces,
  modelProviders,
  mailer,
  logger,
}: Pick<Services, "access" | "workspaces" | "modelProviders" | "mailer" | "logger">) {
  return [
    endpoint(api.getModelProvider, (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "viewer");
      return c.json(modelProviders.get(id));
    }),
    endpoint(api.setModelProvider, async (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "admin");
      return c.json(await modelProviders.set(id, await input.json()));
    }),
    endpoint(api.listProviderModels, async (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "editor");
      return c.json(await modelProviders.listModels(id));
    }),
    endpoint(api.testModel, async (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "editor");
      const body = await input.json();
      return c.json(await modelProviders.test(id, body.model, body.question));
    }),
    endpoint(api.listWorkspaces, (c) =>
      c.json(wholePage(workspaces.listFor(access.requireUser(c.get("principal")).id))),
    ),
    endpoint(api.createWorkspace, async (c, input) => {
      const user = access.requireUser(c.get("principal"));
      const body = await input.json();
      return c.json(await workspaces.create(user.id, body.name), 201);
    }),
    endpoint(api.listMembers, (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "viewer");
      return c.json(wholePage(workspaces.members(id)));
    }),
    endpoint(api.inviteMember, async (c, input) => {
      const id = input.id("workspaceId");
      const principal = c.get("principal");
      const myRole = access.requireWorkspace(principal, id, "admin");
      const body = await input.json();
      const invitation = await workspaces.invite(id, access.requireUser(principal), myRole, body);
      const link = `${publicRoot(c)}/console/#/invitations/${invitation.id}`;
      return c.json({ ...invitation, emailed: await mailInvitation(mailer, logger, invitation, link) }, 201);
    }),
    endpoint(api.listInvitations, (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "admin");
      return c.json(wholePage(workspaces.invitations(id)));
    }),
    endpoint(api.revokeInvitation, async (c, input) => {
      const id = input.id("workspaceId");
      access.requireWorkspace(c.get("principal"), id, "admin");
      await workspaces.revokeInvitation(id, input.id("invitationId"));
      return c.body(null, 204);
    }),
    endpoint(api.previewInvitation, (c, input) => c.json(workspaces.preview(input.id("invitationId")))),
    endpoint(api.acceptInvitation, async (c, input) => {
      const user = access.requireUser(c.get("principal"));
      return c.json(await workspaces.accept(user, input.id("invitationId")));
    }),
    endpoint(api.declineInvitation, async (c, input) => {
      await workspaces.decline(access.requireUser(c.get("principal")), input.id("invitationId"));
      return c.body(null, 204);
    }),
    endpoint(api.updateMember, async (c, input) => {
      const id = input.id("workspaceId");
      const myRole = access.requireWorkspace(c.get("principal"), id, "admin");
      const target = workspaces.membership(id, input.id("userId"));
      const body = await input.json();
      return c.json(await workspaces.changeRole(target, myRole, body.role));
    }),
    endpoint(api.removeMember, async (c, input) => {
      const id = input.id("workspaceId");
      const principal = c.get("principal");
      const me = access.requireUser(principal);
      access.requireWorkspace(principal, id, "viewer");
      const target = workspaces.membership(id, input.id("userId"));
      // Anyone may leave; removing others needs admin, removing an owner needs owner.
      const myRole = access.requireWorkspace(principal, id, target.userId === me.id ? "viewer" : "admin");
      await workspaces.removeMember(target, myRole);
      return c.body(null, 204);
    }),
  ];
}
