import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { until } from "./until.ts";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message as sent: headers, blank line, body (quoted-printable when long lines). */
  data: string;
  /** `data` with quoted-printable soft line breaks undone, so long lines read whole. */
  text: string;
  /** The user the sender signed in as. */
  user: string | undefined;
}

export interface LocalSmtp {
  /** `smtp://lore:s3cret@127.0.0.1:<port>`, as LORE_SMTP_URL takes it. */
  url: string;
  mails: ReceivedMail[];
  /** The first mail `match` accepts, waited for (up to 15 s); `what` names it when none comes. */
  waitForMail(match: (mail: ReceivedMail) => boolean, what: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (never a real one out there): one user, and it keeps what it is sent. */
export async function startLocalSmtp(): Promise<LocalSmtp> {
  const mails: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === "lore" && auth.password === "s3cret") done(null, { user: auth.username });
      else done(new Error("bad credentials"));
    },
    onData(stream, session, done) {
      let data = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        data += chunk;
      });
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
          text: data.replace(/=\r?\n/g, ""),
          user: typeof session.user === "string" ? session.user : undefined,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return {
    url: `smtp://lore:s3cret@127.0.0.1:${port}`,
    mails,
    waitForMail: (match, what) => until(() => mails.find(match), { what }),
    close: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}
