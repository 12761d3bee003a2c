import { randomUUID } from "node:crypto";
import type { WidgetConfig } from "@lore/shared";
import type { Context } from "hono";
import { handoffOf, themeOf } from "../agents/agents-service.ts";
import { answerQuestion } from "../answers/answer-question.ts";
import { collectResponse } from "../answers/collect-response.ts";
import { AppError } from "../errors.ts";
import { publicRoot } from "../http/forwarded.ts";
import type { AppEnv } from "../http/principal.ts";
import { endpoint, type RouteInput } from "../http/route.ts";
import { linkedController, streamEvents, wantsStream } from "../http/sse.ts";
import type { Services } from "../services.ts";
import { previewGrantOfPage, verifyPreviewGrant } from "../site/preview-grant.ts";
import type { AgentRecord, ConversationRecord } from "../store/records.ts";
import { cleanPageUrl } from "./page-url.ts";
import * as api from "./widget-api.ts";

/** The page's origin: `Origin`, else the origin of `Referer` (same-origin GETs carry no Origin). */
function pageOrigin(c: Context): string | null {
  const origin = c.req.header("origin");
  if (origin) return origin === "null" ? null : origin.toLowerCase();
  const referer = c.req.header("referer");
  if (!referer) return null;
  try {
    return new URL(referer).origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Exact origin match only: `https://allowed.com` never admits `https://allowed.com.evil.com` or
 * `https://evil-allowed.com`. The agent's list is the only authority, this server's own origin included.
 */
export function originAllowed(agent: AgentRecord, origin: string | null): boolean {
  if (!origin) return false;
  return agent.allowedOrigins.some((allowed) => allowed === "*" || allowed === origin);
}

/** The demo page of a preview opened from the console: this server's origin, with a live grant for this agent. */
function previewAllowed(
  c: Context,
  agent: AgentRecord,
  origin: string | null,
  ownOrigin: string,
  secret: string,
): boolean {
  if (origin !== ownOrigin) return false;
  const claims = verifyPreviewGrant(secret, previewGrantOfPage(c.req.header("referer")));
  return claims?.agentId === agent.id && claims.widgetId === agent.widgetId;
}

/** The public routes the widget calls: no secret, an origin check, and a signed visitor token. */
export function widgetRoutes({
  agents,
  answerDeps,
  conversations,
  config,
  tokens,
  lifecycle,
  widgetOrigins,
  handoffs,
  limiter,
  answerReplay,
}: Pick<
  Services,
  | "agents"
  | "answerDeps"
  | "conversations"
  | "config"
  | "tokens"
  | "lifecycle"
  | "widgetOrigins"
  | "handoffs"
  | "limiter"
  | "answerReplay"
>) {
  const agentFor = (c: Context<AppEnv>): AgentRecord => {
    const widgetId = c.req.param("widgetId") ?? "";
    const agent = /^wgt_[A-Za-z0-9_-]{8,64}$/.test(widgetId) ? agents.byWidgetId(widgetId) : undefined;
    if (!agent) throw new AppError("not_found", "widget not found", { resource: "widget", id: widgetId });
    const origin = pageOrigin(c);
    const ownOrigin = new URL(publicRoot(c)).origin.toLowerCase();
    if (!originAllowed(agent, origin) && !previewAllowed(c, agent, origin, ownOrigin, config.jwtSecret)) {
      // The owner's console lists it, so a site that was never allowed doesn't fail silently.
      widgetOrigins.refused(agent.id, origin);
      throw new AppError("origin_not_allowed", "This site may not use this chat widget", { origin });
    }
    return agent;
  };

  const visitorOf = async (agent: AgentRecord, token: string | undefined): Promise<string | null> => {
    if (!token) return null;
    const claims = await tokens.verify(token, "visitor", agent.id);
    return claims.sub;
  };

  /** Who is resuming a stream: the visitor of a valid token, else the address asking. */
  const resumeOwner = async (c: Context<AppEnv>, input: RouteInput<typeof api.widgetQuery>) => {
    const agent = agentFor(c);
    const token = (await input.json()).visitorToken;
    const visitorId = token ? await visitorOf(agent, token) : null;
    return visitorId ? `${agent.id}|visitor:${visitorId}` : `${agent.id}|ip:${c.get("clientIp")}`;
  };

  /** A question's charge: the agent, and the visitor when the token is valid (else the handler refuses it). */
  const chargeOf = async (c: Context<AppEnv>, input: RouteInput<typeof api.widgetQuery>) => {
    const agent = agentFor(c);
    const token = (await input.json()).visitorToken;
    const visitorId = token
      ? await tokens.verify(token, "visitor", agent.id).then(
          (claims) => claims.sub,
          () => undefined,
        )
      : undefined;
    return visitorId ? { id: agent.id, visitorId } : { id: agent.id };
  };

  /** The visitor's own conversation; anyone else's (or none) is 404, the same as an unknown one. */
  const visitorsConversation = async (
    agent: AgentRecord,
    conversationId: string,
    visitorId: string | null,
  ): Promise<ConversationRecord> => {
    const conversation = await conversations.load(agent.id, conversationId);
    if (visitorId === null || conversation.visitorId !== visitorId) {
      throw new AppError("not_found", "conversation not found", {
        resource: "conversation",
        id: conversation.id,
      });
    }
    return conversation;
  };

  /** Contact requests per visitor and hour, and four times as many per client IP. */
  const handoffRules = (c: Context<AppEnv>, visitorId: string) => {
    const limit = config.limits.handoffsPerHour;
    const hour = 3_600_000;
    return [
      { name: "handoffs_per_hour", key: `visitor:${visitorId}`, limit, windowMs: hour },
      { name: "handoffs_per_hour", key: `ip:${c.get("clientIp")}`, limit: limit * 4, windowMs: hour },
    ];
  };

  /**
   * A visitor who reloads or leaves mid-answer doesn't cut the answer short: it is finished and
   * stored, and the reloaded widget reads it back. Only a shutdown aborts it.
   */
  const outlivingVisitor = (connection: AbortSignal): AbortSignal => {
    const answer = new AbortController();
    connection.addEventListener(
      "abort",
      () => {
        if (lifecycle.draining) answer.abort(connection.reason);
      },
      { once: true },
    );
    return answer.signal;
  };

  return [
    endpoint(
      api.widgetConfig,
      (c) => {
        const agent = agentFor(c);
        const origin = pageOrigin(c);
        // "Last seen on this site" for the allowed entry that admitted it (not for previews).
        const allowedBy = origin && agent.allowedOrigins.includes(origin) ? origin : "*";
        if (originAllowed(agent, origin)) widgetOrigins.seen(agent.id, allowedBy);
        const body: WidgetConfig = {
          widgetId: agent.widgetId,
          name: agent.name,
          welcomeMessage: agent.welcomeMessage,
          suggestedQuestions: agent.suggestedQuestions,
          theme: themeOf(agent),
          handoff: handoffOf(agent),
          status: agents.isProcessing(agent) ? "processing" : "ready",
        };
        c.header("Cache-Control", "no-cache");
        return c.json(body);
      },
      // A page view is not a question: config reads have their own bucket (see rateLimitQuery).
      { queryAgent: (c) => ({ widgetConfig: agentFor(c).id }) },
    ),
    endpoint(
      api.widgetQuery,
      async (c, input) => {
        const agent = agentFor(c);
        const body = await input.json();
        let visitorId = await visitorOf(agent, body.visitorToken);
        if (body.conversationId && !visitorId) {
          throw new AppError("not_found", "conversation not found", {
            resource: "conversation",
            id: body.conversationId,
          });
        }
        visitorId ??= randomUUID();
        const visitorToken = await tokens.sign({ sub: visitorId, kind: "visitor", ver: 0, aud: agent.id });
        const stream = wantsStream(c.req.header("accept"));
        const controller = linkedController(c.req.raw.signal);
        const events = answerQuestion(answerDeps, {
          agent,
          message: body.message,
          conversationId: body.conversationId,
          channel: "widget",
          pageUrl: body.pageUrl ? cleanPageUrl(body.pageUrl) : undefined,
          device: body.device,
          streamed: stream,
          callerId: `visitor:${visitorId}`,
          visitorId,
          signal: outlivingVisitor(controller.signal),
        });
        if (stream) {
          // Resumable by the visitor, or (asked without a token) from the same address.
          const owners = [`${agent.id}|visitor:${visitorId}`];
          if (!body.visitorToken) owners.push(`${agent.id}|ip:${c.get("clientIp")}`);
          const recorder = answerReplay.record(owners);
          return streamEvents(recorder.track(events), controller, {}, (event) =>
            recorder.encode(event.type === "start" ? { ...event, visitorToken } : event),
          );
        }
        return c.json({ ...(await collectResponse(events)), visitorToken });
      },
      { queryAgent: chargeOf, resumeOwner },
    ),
    endpoint(api.widgetHandoff, async (c, input) => {
      const agent = agentFor(c);
      const { visitorToken, ...request } = await input.json();
      const visitorId = await visitorOf(agent, visitorToken);
      const conversation = await visitorsConversation(agent, input.id("conversationId"), visitorId);
      // Charged once the request is valid: a visitor correcting a typo spends nothing.
      await limiter.charge(handoffRules(c, conversation.visitorId ?? ""));
      const handoff = await handoffs.create(agent, conversation, conversation.visitorId ?? "", request);
      return c.json({ id: handoff.id, status: handoff.status, createdAt: handoff.createdAt }, 201);
    }),
    endpoint(api.widgetFirstHandoff, async (c, input) => {
      const agent = agentFor(c);
      const { visitorToken, ...request } = await input.json();
      const visitorId = (await visitorOf(agent, visitorToken)) ?? randomUUID();
      await limiter.charge(handoffRules(c, visitorId));
      const handoff = await handoffs.createFirst(agent, visitorId, request);
      const token = await tokens.sign({ sub: visitorId, kind: "visitor", ver: 0, aud: agent.id });
      const { id, status, createdAt, conversationId } = handoff;
      return c.json({ id, status, createdAt, conversationId, visitorToken: token }, 201);
    }),
    endpoint(api.widgetConversation, async (c, input) => {
      const agent = agentFor(c);
      const visitorId = await visitorOf(agent, (await input.json()).visitorToken);
      const conversation = await visitorsConversation(agent, input.id("conversationId"), visitorId);
      const messages = (await conversations.messages(conversation.id)).map(
        ({ id, role, content, sources, status, feedback, outcome, createdAt }) => ({
          id,
          role,
          content,
          sources,
          status,
          feedback,
          outcome,
          createdAt,
        }),
      );
      return c.json({ conversationId: conversation.id, messages });
    }),
    endpoint(api.widgetFeedback, async (c, input) => {
      const agent = agentFor(c);
      const body = await input.json();
      const visitorId = await visitorOf(agent, body.visitorToken);
      const message = await conversations.findMessage(agent.id, c.req.param("messageId") ?? "");
      if (conversations.visitorOf(message.conversationId) !== visitorId) {
        throw new AppError("not_found", "message not found", { resource: "message", id: message.id });
      }
      await conversations.rateAnswer(agent, message, body.rating, body.comment ?? null, body.reason ?? null);
      return c.body(null, 204);
    }),
  ];
}
