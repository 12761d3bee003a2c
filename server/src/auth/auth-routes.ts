import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./auth-api.ts";
import { toUser } from "./users-service.ts";

export function authRoutes({ auth, access, workspaces }: Pick<Services, "auth" | "access" | "workspaces">) {
  return [
    endpoint(api.login, async (c, input) => c.json(await auth.login(await input.json(), c.get("clientIp")))),
    endpoint(api.refreshToken, async (c, input) => c.json(await auth.refresh((await input.json()).refresh))),
    endpoint(api.logout, async (c) => {
      await auth.logout(access.requireUser(c.get("principal")));
      return c.body(null, 204);
    }),
    endpoint(api.me, (c) => {
      const user = access.requireUser(c.get("principal"));
      return c.json({
        user: toUser(user),
        workspaces: workspaces.listFor(user.id),
        invitations: workspaces.invitationsFor(user),
      });
    }),
  ];
}
