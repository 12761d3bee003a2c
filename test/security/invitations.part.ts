/**
 * Membership needs consent (issue #16, item 8): adding someone to a workspace invites them; they
 * join only by accepting. The inviter's answer is the same whether the email is registered or not.
 */

import type { ErrorBody, Invitation, InvitationCreated, Member, Workspace } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let admin: string;
let workspaceId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = (await server.login()).access;
  workspaceId = (
    await server.request<Workspace>("POST", "/workspaces/", { token: admin, body: { name: "Team" } })
  ).body.id;
});
afterAll(() => server?.close());

const invite = (email: string, role = "editor") =>
  server.request<InvitationCreated & ErrorBody>("POST", `/workspaces/${workspaceId}/members/`, {
    token: admin,
    body: { email, role },
  });

async function userToken(email: string): Promise<string> {
  await server.createUser(email);
  return (await server.login(email, DEFAULT_PASSWORD)).access;
}

const me = async (token: string) =>
  (
    await server.request<{ invitations: Invitation[]; workspaces: Workspace[] }>("GET", "/auth/me/", {
      token,
    })
  ).body;
const memberEmails = async () =>
  (
    await server.request<{ results: Member[] }>("GET", `/workspaces/${workspaceId}/members/`, {
      token: admin,
    })
  ).body.results.map((m) => m.email);

/** The invitation without what is unique to it: what the inviter learns about the email. */
const shape = (i: Invitation) => ({ ...i, id: "", email: "", createdAt: "", expiresAt: "" });

describe("inviting", () => {
  it("answers the same for a registered and an unknown email, and adds nobody", async () => {
    await server.createUser("known@example.com");
    const known = await invite("known@example.com");
    const unknown = await invite("nobody-here@example.com");
    expect([known.status, unknown.status]).toEqual([201, 201]);
    expect(shape(known.body)).toEqual(shape(unknown.body));
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
    expect(await memberEmails()).not.toContain("known@example.com");
    // Inviting again is 409 either way, too.
    const again = [await invite("known@example.com"), await invite("nobody-here@example.com")];
    expect(again.map((r) => [r.status, r.body.error])).toEqual([
      [409, "conflict"],
      [409, "conflict"],
    ]);
  });

  it("the invitee sees it in /auth/me/ and joins by accepting, with the invited role", async () => {
    const token = await userToken("bob@example.com");
    const sent = await invite("bob@example.com", "viewer");
    const pending = (await me(token)).invitations;
    // The invitation as created, less whether it was e-mailed (this server sends no e-mail).
    const { emailed, ...invitation } = sent.body;
    expect(emailed).toBe("off");
    expect(pending).toEqual([invitation]);
    expect(pending[0]).toMatchObject({
      workspaceId,
      workspaceName: "Team",
      role: "viewer",
      invitedBy: "admin@example.com",
    });
    // Not a member before accepting: the workspace is another tenant's.
    expect((await server.request("GET", `/workspaces/${workspaceId}/members/`, { token })).status).toBe(404);

    const accepted = await server.request<Workspace>("POST", `/invitations/${sent.body.id}/accept/`, {
      token,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: workspaceId, name: "Team", role: "viewer" });
    expect(await memberEmails()).toContain("bob@example.com");
    expect((await me(token)).invitations).toEqual([]);
    expect((await server.request("POST", `/invitations/${sent.body.id}/accept/`, { token })).status).toBe(
      404,
    );
  });

  it("nobody but the invitee can accept or decline it", async () => {
    const sent = await invite("carol@example.com");
    const mallory = await userToken("mallory@example.com");
    for (const answer of ["accept", "decline"]) {
      const res = await server.request<ErrorBody>("POST", `/invitations/${sent.body.id}/${answer}/`, {
        token: mallory,
      });
      expect({ answer, status: res.status, error: res.body.error }).toEqual({
        answer,
        status: 404,
        error: "not_found",
      });
    }
    // The inviting admin can't accept it on their behalf either.
    expect(
      (await server.request("POST", `/invitations/${sent.body.id}/accept/`, { token: admin })).status,
    ).toBe(404);
    // Carol signs up later and finds it waiting.
    const carol = await userToken("carol@example.com");
    expect((await me(carol)).invitations.map((i) => i.id)).toEqual([sent.body.id]);
    expect(
      (await server.request("POST", `/invitations/${sent.body.id}/accept/`, { token: carol })).status,
    ).toBe(200);
    expect(await memberEmails()).toContain("carol@example.com");
  });

  it("declining or a revoked invitation leaves the invitee out", async () => {
    const dave = await userToken("dave@example.com");
    const declined = await invite("dave@example.com");
    expect(
      (await server.request("POST", `/invitations/${declined.body.id}/decline/`, { token: dave })).status,
    ).toBe(204);
    const revoked = await invite("dave@example.com");
    const listed = await server.request<{ results: Invitation[] }>(
      "GET",
      `/workspaces/${workspaceId}/invitations/`,
      {
        token: admin,
      },
    );
    expect(listed.body.results.map((i) => i.id)).toContain(revoked.body.id);
    const gone = await server.request(
      "DELETE",
      `/workspaces/${workspaceId}/invitations/${revoked.body.id}/`,
      {
        token: admin,
      },
    );
    expect(gone.status).toBe(204);
    expect((await me(dave)).invitations).toEqual([]);
    expect(
      (await server.request("POST", `/invitations/${revoked.body.id}/accept/`, { token: dave })).status,
    ).toBe(404);
    expect(await memberEmails()).not.toContain("dave@example.com");
  });

  it("only owners invite owners", async () => {
    const lead = await userToken("lead@example.com");
    const sent = await invite("lead@example.com", "admin");
    await server.request("POST", `/invitations/${sent.body.id}/accept/`, { token: lead });
    const res = await server.request<ErrorBody>("POST", `/workspaces/${workspaceId}/members/`, {
      token: lead,
      body: { email: "boss@example.com", role: "owner" },
    });
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 403,
      error: "permission_denied",
    });
  });
});
