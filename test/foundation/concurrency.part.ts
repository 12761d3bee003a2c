import { AppError } from "@lore/server/errors.ts";
import type { Agent, ErrorBody, Member } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_PASSWORD,
  personalWorkspaceId,
  startTestServer,
  type TestServer,
} from "../helpers/server.ts";

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = (await server.login()).access;
});
afterAll(() => server?.close());

describe("uniqueness under concurrent requests", () => {
  it("20 concurrent invitations of the same user: exactly one 201, the rest 409; accepting makes one member", async () => {
    const team = await server.request<{ id: string }>("POST", "/workspaces/", {
      token: admin,
      body: { name: "Race" },
    });
    const user = await server.createUser("racer@example.com");
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.request<ErrorBody>("POST", `/workspaces/${team.body.id}/members/`, {
          token: admin,
          body: { email: "racer@example.com", role: "viewer" },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    expect(conflicts[0]?.body.error).toBe("conflict");
    const racer = (await server.login("racer@example.com", DEFAULT_PASSWORD)).access;
    const invitationId = (results.find((r) => r.status === 201)?.body as { id?: string } | undefined)?.id;
    const accepts = await Promise.all(
      Array.from({ length: 5 }, () =>
        server.request("POST", `/invitations/${invitationId}/accept/`, { token: racer }),
      ),
    );
    expect(accepts.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const members = await server.request<{ results: Member[] }>(
      "GET",
      `/workspaces/${team.body.id}/members/`,
      { token: admin },
    );
    expect(members.body.results.filter((m) => m.userId === user.id)).toHaveLength(1);
  });

  it("20 concurrent sign-ups with one email (in any case): exactly one user", async () => {
    const emails = Array.from({ length: 20 }, (_, i) => (i % 2 ? "Twin@Example.com" : "twin@example.com"));
    const settled = await Promise.allSettled(
      emails.map((email) => server.services.users.createUser({ email, password: DEFAULT_PASSWORD })),
    );
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(rejected).toHaveLength(19);
    for (const r of rejected) expect(r.reason instanceof AppError && r.reason.code).toBe("conflict");
    // Read from the store on purpose: no API lists users, and a duplicate row is what this guards against.
    expect(server.services.store.users.filter((u) => u.email === "twin@example.com")).toHaveLength(1);
    expect(
      (
        await server.request("POST", "/auth/login/", {
          body: { email: "twin@example.com", password: DEFAULT_PASSWORD },
        })
      ).status,
    ).toBe(200);
  });

  it("concurrent PATCHes of different fields of one agent lose none of them", async () => {
    const created = await server.request<Agent>("POST", "/agents/", {
      token: admin,
      body: { name: "Patchy" },
    });
    const id = created.body.id;
    const patches: Array<Record<string, unknown>> = [
      { name: "Renamed" },
      { description: "A description" },
      { instructions: "Be brief." },
      { welcomeMessage: "Hello there" },
      { fallbackMessage: "No idea, sorry." },
      { temperature: 0.7 },
      { maxTokens: 1234 },
      { suggestedQuestions: ["What is Lore?"] },
      { retrieval: { topK: 9 } },
      { retrieval: { minScore: 0.3 } },
      { theme: { title: "Ask Patchy" } },
      { theme: { primaryColor: "#ff0000" } },
      { allowedOrigins: ["https://example.com"] },
    ];
    const results = await Promise.all(
      patches.map((body) => server.request("PATCH", `/agents/${id}/`, { token: admin, body })),
    );
    expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
    const final = (await server.request<Agent>("GET", `/agents/${id}/`, { token: admin })).body;
    expect(final).toMatchObject({
      name: "Renamed",
      description: "A description",
      instructions: "Be brief.",
      welcomeMessage: "Hello there",
      fallbackMessage: "No idea, sorry.",
      temperature: 0.7,
      maxTokens: 1234,
      suggestedQuestions: ["What is Lore?"],
      retrieval: { topK: 9, minScore: 0.3, mode: "hybrid" },
      theme: { title: "Ask Patchy", primaryColor: "#ff0000", position: "bottom-right" },
      allowedOrigins: ["https://example.com"],
    });
    expect(Date.parse(final.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
  });

  it("20 concurrent agent creations all land, each once", async () => {
    const user = await server.createUser("maker@example.com");
    const { access } = await server.login(user.email, DEFAULT_PASSWORD);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server.request<Agent>("POST", "/agents/", { token: access, body: { name: `A${i}` } }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const list = await server.request<{ count: number; results: Agent[] }>("GET", "/agents/?page_size=100", {
      token: access,
    });
    expect(list.body.count).toBe(20);
    expect(new Set(list.body.results.map((a) => a.name)).size).toBe(20);
    expect(
      list.body.results.every((a) => a.workspaceId === personalWorkspaceId(server.services, user.id)),
    ).toBe(true);
  });
});
