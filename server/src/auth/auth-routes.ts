import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { AppError } from "../errors.ts";
import { baseOf, publicPrefix } from "../http/forwarded.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as invitations from "../workspaces/workspaces-api.ts";
import * as api from "./auth-api.ts";
import { toUser } from "./users-service.ts";

/** The console's refresh cookie (docs/api.md, "Browser sessions"). */
export const SESSION_COOKIE = "lore_session";

export function authRoutes({
  auth,
  access,
  workspaces,
  config,
}: Pick<Services, "auth" | "access" | "workspaces" | "config">) {
  // Sent only to the session routes (under a proxy's path prefix, as the browser sees them): never
  // with another API request, never to the console's pages.
  const path = (c: Context<AppEnv>) => `${publicPrefix(c)}${config.apiPrefix}/auth/session/`;
  const secure = (c: Context<AppEnv>) => baseOf(c).secure;
  const keep = (c: Context<AppEnv>, refresh: string) =>
    setCookie(c, SESSION_COOKIE, refresh, {
      path: path(c),
      httpOnly: true,
      sameSite: "Strict",
      secure: secure(c),
      maxAge: config.refreshTokenTtl,
    });
  const clear = (c: Context<AppEnv>) =>
    deleteCookie(c, SESSION_COOKIE, { path: path(c), httpOnly: true, sameSite: "Strict", secure: secure(c) });
  return [
    endpoint(api.login, async (c, input) => c.json(await auth.login(await input.json(), c.get("clientIp")))),
    endpoint(api.refreshToken, async (c, input) => c.json(await auth.refresh((await input.json()).refresh))),
    endpoint(api.logout, async (c) => {
      await auth.logout(access.requireUser(c.get("principal")));
      return c.body(null, 204);
    }),
    endpoint(api.sessionLogin, async (c, input) => {
      const { access: token, refresh, user } = await auth.login(await input.json(), c.get("clientIp"));
      keep(c, refresh);
      return c.json({ access: token, user }, 200);
    }),
    endpoint(api.sessionRefresh, async (c, input) => {
      await input.json();
      const cookie = getCookie(c, SESSION_COOKIE);
      if (!cookie) throw new AppError("not_authenticated", "No session: log in");
      try {
        const { access: token, refresh, user } = await auth.refreshSession(cookie);
        if (refresh) keep(c, refresh);
        return c.json({ access: token, user }, 200);
      } catch (error) {
        // A cookie that can never work again is dropped, so the browser stops sending it.
        if (error instanceof AppError) clear(c);
        throw error;
      }
    }),
    endpoint(api.sessionLogout, async (c, input) => {
      await input.json();
      const cookie = getCookie(c, SESSION_COOKIE);
      if (cookie) await auth.logoutByRefresh(cookie);
      clear(c);
      return c.body(null, 204);
    }),
    // Signing up from an invitation starts a session as a login does: it lives here, with the cookie.
    endpoint(invitations.signUpFromInvitation, async (c, input) => {
      // An unknown, used or expired invitation is 404 whatever the body says.
      workspaces.preview(input.id("invitationId"));
      const body = await input.json();
      const { user } = await workspaces.signUp(input.id("invitationId"), body);
      const session = await auth.login({ email: user.email, password: body.password }, c.get("clientIp"));
      keep(c, session.refresh);
      return c.json({ access: session.access, user: session.user }, 200);
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
