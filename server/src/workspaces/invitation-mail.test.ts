import { createServer } from "node:net";
import type { Invitation } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSmtp, startLocalSmtp } from "../../../test/helpers/smtp.ts";
import { createSmtpMailer } from "../handoffs/handoff-mailer.ts";
import { createLogger } from "../log/logger.ts";
import { mailInvitation } from "./invitation-mail.ts";

const logger = createLogger("silent");
const LINK = "https://lore.example/console/#/invitations/inv_1";
const invitation: Invitation = {
  id: "inv_1",
  workspaceId: "ws_1",
  workspaceName: "Shop\r\nBcc: attacker@evil.test",
  email: "bo@example.org",
  role: "editor",
  invitedBy: "owner@shop.example",
  createdAt: "2026-12-06T06:00:00.000Z",
  expiresAt: "2026-12-13T06:00:00.000Z",
};

let smtp: LocalSmtp;
beforeAll(async () => {
  smtp = await startLocalSmtp();
});
afterAll(async () => {
  await smtp?.close();
});

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("the invitation e-mail", () => {
  it("sends the invitee the link, who invited them to what, and until when", async () => {
    const mailer = createSmtpMailer(smtp.url, "Lore <lore@shop.example>");
    try {
      expect(await mailInvitation(mailer, logger, invitation, LINK)).toBe("sent");
    } finally {
      mailer.close();
    }
    const mail = smtp.mails.at(-1);
    expect(mail?.to).toEqual(["bo@example.org"]);
    const data = mail?.data.replace(/=\r?\n/g, "") ?? "";
    const lines = data.split(/\r?\n/);
    expect(lines).toContain(LINK);
    // Long headers fold onto indented lines.
    expect(data.replace(/\r?\n[ \t]/g, " ")).toMatch(
      /^Subject: owner@shop\.example invited you to Shop Bcc: attacker@evil\.test on Lore\r?$/m,
    );
    // The workspace's name can't add a header of its own.
    expect(lines.filter((l) => /^Bcc:/i.test(l))).toEqual([]);
    expect(data).toMatch(/^Reply-To: owner@shop\.example/m);
    expect(data).toContain("(role: editor)");
    expect(data).toContain("works until 2026-12-13T06:00:00.000Z");
  });

  it("says `failed` when the SMTP server can't be reached, and `off` without one", async () => {
    const mailer = createSmtpMailer(`smtp://127.0.0.1:${await closedPort()}`, "lore@localhost", 5_000);
    try {
      expect(await mailInvitation(mailer, logger, invitation, LINK)).toBe("failed");
    } finally {
      mailer.close();
    }
    expect(await mailInvitation(null, logger, invitation, LINK)).toBe("off");
  });
});
