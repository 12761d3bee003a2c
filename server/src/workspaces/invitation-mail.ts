import type { Invitation, InvitationCreated } from "@lore/shared";
import type { Mailer, MailMessage } from "../handoffs/handoff-mailer.ts";
import { oneLine } from "../handoffs/visitor-text.ts";
import type { Logger } from "../log/logger.ts";

/** Plain text: who invites whom to what, the link that accepts it, and until when it works. */
export function invitationMail(invitation: Invitation, link: string): MailMessage {
  const workspace = oneLine(invitation.workspaceName);
  const inviter = oneLine(invitation.invitedBy);
  return {
    to: [invitation.email],
    subject: `${inviter} invited you to ${workspace} on Lore`,
    text: [
      `${inviter} invited you to join ${workspace} on Lore (role: ${invitation.role}).`,
      "",
      "Open this link to accept: you set your name and a password, or log in if you already have an account.",
      link,
      "",
      `The invitation works until ${invitation.expiresAt} unless it is revoked. If you did not expect it, ignore this e-mail.`,
    ].join("\n"),
    replyTo: invitation.invitedBy,
  };
}

/**
 * E-mails the invitee their link, once: the inviter is waiting and copies the link when it fails.
 * `off` when the server sends no e-mail.
 */
export async function mailInvitation(
  mailer: Mailer | null,
  logger: Logger,
  invitation: Invitation,
  link: string,
): Promise<InvitationCreated["emailed"]> {
  if (!mailer) return "off";
  try {
    await mailer.send(invitationMail(invitation, link));
    logger.info("invitation e-mailed", { invitationId: invitation.id });
    return "sent";
  } catch (error) {
    logger.warn("invitation e-mail failed", {
      invitationId: invitation.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return "failed";
  }
}
