import { normaliseOrigin } from "@lore/shared";
import { AppError } from "../errors.ts";
import { endpoint } from "../http/route.ts";
import type { Services } from "../services.ts";
import * as api from "./widget-origins-api.ts";

export function widgetOriginsRoutes({
  access,
  agents,
  widgetOrigins,
}: Pick<Services, "access" | "agents" | "widgetOrigins">) {
  /** The body's origin as stored (the schema refused anything that is not one). */
  const originOf = (input: string): string => normaliseOrigin(input) ?? input;
  return [
    endpoint(api.listWidgetOrigins, (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "read");
      return c.json(widgetOrigins.list(agent));
    }),
    endpoint(api.allowWidgetOrigin, async (c, input) => {
      const principal = c.get("principal");
      const agent = access.agent(principal, input.id("agentId"), "write");
      const origin = originOf((await input.json()).origin);
      let next = agent;
      if (!agent.allowedOrigins.includes(origin)) {
        const allowedOrigins = [...agent.allowedOrigins, origin];
        if (allowedOrigins.length > 50) {
          throw new AppError("validation_error", "An agent allows at most 50 origins", {
            fields: { origin: ["the agent already allows 50 origins: remove one in Settings first"] },
          });
        }
        if (principal.kind === "apiKey") agents.checkKeyPatch(agent, { allowedOrigins });
        next = await agents.update(agent, { allowedOrigins });
      }
      await widgetOrigins.forget(next, origin);
      return c.json(agents.toAgent(next));
    }),
    endpoint(api.dismissWidgetOrigin, async (c, input) => {
      const agent = access.agent(c.get("principal"), input.id("agentId"), "write");
      await widgetOrigins.forget(agent, originOf((await input.json()).origin));
      return c.body(null, 204);
    }),
  ];
}
