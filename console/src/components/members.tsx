// Workspace members and invitations (#/members), and an invitation to accept (#/invitations/{id}):
// the console side of the workspace routes in docs/api.md.
import type {
  Invitation,
  InvitationCreated,
  InvitationPreview,
  Me,
  Member,
  Page,
  Role,
  Workspace,
} from "@lore/shared";
import { useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { api, type Session } from "../api.ts";
import { loadAgents, route, session, signIn } from "../state.ts";
import {
  bindInput,
  CopyButton,
  ErrorBox,
  Field,
  FormError,
  inputValue,
  Status,
  useFormState,
} from "./ui.tsx";
import { WorkspaceScreen } from "./workspace-screen.tsx";

const ROLES: [Role, string][] = [
  ["viewer", "Viewer: reads agents, conversations and analytics"],
  ["editor", "Editor: also changes agents and sources"],
  ["admin", "Admin: also manages members, API keys and webhooks"],
  ["owner", "Owner: everything, including other owners"],
];
const roleName = (role: Role) => role[0]?.toUpperCase() + role.slice(1);
const manages = (role: Role | undefined) => role === "admin" || role === "owner";

/** The link that opens an invitation in this console. */
export function invitationLink(id: string): string {
  return `${location.origin}${location.pathname}#/invitations/${id}`;
}

export function MembersScreen() {
  return (
    <WorkspaceScreen title="Members">
      {(me, workspace) => (
        <>
          {me.invitations.length > 0 && <YourInvitations invitations={me.invitations} />}
          {workspace && <WorkspaceMembers key={workspace.id} workspace={workspace} />}
        </>
      )}
    </WorkspaceScreen>
  );
}

function YourInvitations(props: { invitations: Invitation[] }) {
  return (
    <section class="card" aria-labelledby="your-invitations-title">
      <h2 id="your-invitations-title">Invitations to you</h2>
      <ul class="plain">
        {props.invitations.map((i) => (
          <li key={i.id}>
            <a href={`#/invitations/${i.id}`}>
              Join {i.workspaceName} as {i.role}
            </a>{" "}
            <span class="muted">from {i.invitedBy}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function WorkspaceMembers(props: { workspace: Workspace }) {
  const { workspace } = props;
  const admin = manages(workspace.role);
  const members = useSignal<Member[] | null>(null);
  const invitations = useSignal<Invitation[]>([]);
  const error = useSignal<unknown>(null);
  const status = useSignal("");
  const base = `/workspaces/${workspace.id}`;

  const load = async () => {
    try {
      members.value = (await api<Page<Member>>("GET", `${base}/members/`)).results;
      if (admin) invitations.value = (await api<Page<Invitation>>("GET", `${base}/invitations/`)).results;
      error.value = null;
    } catch (e) {
      error.value = e;
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const act = async (done: string, method: string, path: string, body?: unknown) => {
    try {
      await api(method, path, body === undefined ? {} : { body });
      status.value = done;
      error.value = null;
    } catch (e) {
      status.value = "";
      error.value = e;
    }
    // Shows the server's state either way (a refused role change puts the select back).
    const failed = error.value;
    await load();
    if (failed) error.value = failed;
  };
  const leave = async (m: Member) => {
    try {
      await api("DELETE", `${base}/members/${m.userId}/`);
      await loadAgents();
      location.hash = "#/";
    } catch (e) {
      error.value = e;
    }
  };
  const myId = session.value?.user.id;
  const who = (m: Member) => [m.firstName, m.lastName].filter(Boolean).join(" ") || m.email;

  return (
    <>
      {admin ? (
        <InviteForm workspace={workspace} onInvited={load} />
      ) : (
        <p class="muted">
          You are a {workspace.role} of {workspace.name}: admins and owners manage its members.
        </p>
      )}
      <Status>{status.value}</Status>
      {error.value ? <ErrorBox error={error.value} /> : null}
      {members.value && (
        <section class="card" aria-labelledby="member-list-title">
          <h2 id="member-list-title">
            People in {workspace.name} ({members.value.length})
          </h2>
          <ul class="plain member-list">
            {members.value.map((m) => (
              <li key={m.userId} class="member-row" data-email={m.email}>
                <span class="member-who">
                  {who(m)}
                  {m.userId === myId ? " (you)" : ""}
                  {who(m) !== m.email && <span class="muted"> {m.email}</span>}
                </span>
                {admin ? (
                  <select
                    aria-label={`Role of ${m.email}`}
                    value={m.role}
                    onChange={(e) =>
                      act(`${m.email} is now ${inputValue(e)}.`, "PATCH", `${base}/members/${m.userId}/`, {
                        role: inputValue(e),
                      })
                    }
                  >
                    {ROLES.map(([r]) => (
                      <option key={r} value={r}>
                        {roleName(r)}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span>{roleName(m.role)}</span>
                )}
                {(admin || m.userId === myId) && (
                  <button
                    type="button"
                    class="small danger"
                    aria-label={m.userId === myId ? `Leave ${workspace.name}` : `Remove ${m.email}`}
                    onClick={() => {
                      const leaving = m.userId === myId;
                      const question = leaving
                        ? `Leave ${workspace.name}? You lose access to its agents.`
                        : `Remove ${m.email} from ${workspace.name}? They lose access at once.`;
                      if (!confirm(question)) return;
                      if (leaving) void leave(m);
                      else void act(`${m.email} was removed.`, "DELETE", `${base}/members/${m.userId}/`);
                    }}
                  >
                    {m.userId === myId ? "Leave" : "Remove"}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {admin && (
        <section class="card" aria-labelledby="pending-title">
          <h2 id="pending-title">Pending invitations ({invitations.value.length})</h2>
          {invitations.value.length === 0 ? (
            <p class="muted">Nobody is waiting to join.</p>
          ) : (
            <ul class="plain member-list">
              {invitations.value.map((i) => (
                <li key={i.id} class="member-row" data-email={i.email}>
                  <span class="member-who">
                    {i.email}{" "}
                    <span class="muted">
                      as {i.role}, until {new Date(i.expiresAt).toLocaleDateString()}
                    </span>
                  </span>
                  <InviteLink id={i.id} email={i.email} />
                  <button
                    type="button"
                    class="small danger"
                    aria-label={`Revoke the invitation to ${i.email}`}
                    onClick={() => {
                      if (confirm(`Revoke the invitation to ${i.email}? Its link stops working.`))
                        void act(
                          `The invitation to ${i.email} was revoked.`,
                          "DELETE",
                          `${base}/invitations/${i.id}/`,
                        );
                    }}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}

/** Whether the server e-mailed the invitation (it does when it has SMTP settings). */
const emailedText: Record<InvitationCreated["emailed"], string> = {
  sent: "It was e-mailed to them with this link.",
  failed: "The e-mail could not be sent (the server's log says why): send them this link.",
  off: "This server sends no e-mail (LORE_SMTP_URL is not set): send them this link.",
};

/** The invitation's link, selectable for copying. */
function InviteLink(props: { id: string; email: string }) {
  const copied = useSignal("");
  return (
    <span class="invite-link-row">
      <input
        class="invite-link"
        readOnly
        aria-label={`Invitation link for ${props.email}`}
        value={invitationLink(props.id)}
        onFocus={(e) => e.currentTarget.select()}
      />{" "}
      <CopyButton
        text={invitationLink(props.id)}
        label={`Copy the link for ${props.email}`}
        status={copied}
      />
      <Status>{copied.value}</Status>
    </span>
  );
}

/**
 * #/invitations/{id} before logging in: who invited whom to what; a new person sets a name and
 * password and lands in the workspace, someone with an account logs in below to accept.
 */
export function InvitationWelcome(props: { login: ComponentChildren }) {
  const id = route.value.item ?? "";
  const preview = useSignal<InvitationPreview | null>(null);
  const loadError = useSignal<unknown>(null);
  const firstName = useSignal("");
  const lastName = useSignal("");
  const password = useSignal("");
  const form = useFormState();
  useEffect(() => {
    api<InvitationPreview>("GET", `/invitations/${id}/`, { auth: false }).then(
      (found) => {
        preview.value = found;
      },
      (e) => {
        loadError.value = e;
      },
    );
  }, [id]);
  const onSubmit = form.submit(async () => {
    const session = await api<Session>("POST", `/invitations/${id}/signup/`, {
      auth: false,
      body: { firstName: firstName.value, lastName: lastName.value, password: password.value },
    });
    location.hash = "#/";
    signIn(session);
  });
  if (loadError.value)
    return (
      <>
        <section class="card invitation" aria-labelledby="invitation-title">
          <h1 id="invitation-title">Invitation</h1>
          <p>
            This invitation link no longer works: it expired, was revoked or was already used. Ask for a new
            one.
          </p>
        </section>
        {props.login}
      </>
    );
  const p = preview.value;
  if (!p) return <p class="loading">Loading…</p>;
  const intro = (
    <p>
      {p.invitedBy} invited <strong>{p.email}</strong> to join <strong>{p.workspaceName}</strong> as {p.role}{" "}
      (until {new Date(p.expiresAt).toLocaleDateString("en")}).
    </p>
  );
  if (p.accountExists)
    return (
      <>
        <section class="card invitation" aria-labelledby="invitation-title">
          <h1 id="invitation-title">Invitation</h1>
          {intro}
          <p>You have an account: log in as {p.email} to accept.</p>
        </section>
        {props.login}
      </>
    );
  return (
    <form
      class="card invitation"
      aria-labelledby="invitation-title"
      noValidate
      ref={form.ref}
      onSubmit={onSubmit}
    >
      <h1 id="invitation-title">Join {p.workspaceName}</h1>
      {intro}
      <FormError error={form.error.value} />
      <Field label="First name" name="firstName" error={form.error.value}>
        {(c) => <input {...c} required autocomplete="given-name" {...bindInput(firstName)} />}
      </Field>
      <Field label="Last name" name="lastName" error={form.error.value}>
        {(c) => <input {...c} autocomplete="family-name" {...bindInput(lastName)} />}
      </Field>
      <Field
        label="Choose a password"
        name="password"
        error={form.error.value}
        hint="At least 10 characters, not containing your e-mail's name."
      >
        {(c) => (
          <input {...c} type="password" required autocomplete="new-password" {...bindInput(password)} />
        )}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          Join {p.workspaceName}
        </button>
      </div>
    </form>
  );
}

function InviteForm(props: { workspace: Workspace; onInvited: () => Promise<void> }) {
  const email = useSignal("");
  const role = useSignal<Role>("editor");
  const sent = useSignal<InvitationCreated | null>(null);
  const form = useFormState();
  const grantable = ROLES.filter(([r]) => r !== "owner" || props.workspace.role === "owner");
  const onSubmit = form.submit(async () => {
    sent.value = await api<InvitationCreated>("POST", `/workspaces/${props.workspace.id}/members/`, {
      body: { email: email.value, role: role.value },
    });
    email.value = "";
    await props.onInvited();
  });
  return (
    <form class="card" aria-labelledby="invite-title" noValidate ref={form.ref} onSubmit={onSubmit}>
      <h2 id="invite-title">Invite someone to {props.workspace.name}</h2>
      <FormError error={form.error.value} />
      <div class="row">
        <Field label="Email" name="email" error={form.error.value}>
          {(p) => <input {...p} type="email" required autocomplete="off" {...bindInput(email)} />}
        </Field>
        <Field label="Role" name="role" error={form.error.value}>
          {(p) => (
            <select
              {...p}
              value={role.value}
              onChange={(e) => {
                role.value = inputValue(e) as Role;
              }}
            >
              {grantable.map(([r, label]) => (
                <option key={r} value={r}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          Invite
        </button>
      </div>
      {sent.value && (
        <div class="invite-sent" role="status">
          <p>
            Invitation for {sent.value.email} ready. {emailedText[sent.value.emailed]} They join when they
            accept it (it also waits in their console after they log in):
          </p>
          <InviteLink id={sent.value.id} email={sent.value.email} />
        </div>
      )}
    </form>
  );
}

/** #/invitations/{id}: the invitee accepts or declines (signed in as the invited email). */
export function InvitationScreen() {
  const id = route.value.item ?? "";
  const invitation = useSignal<Invitation | null | undefined>(undefined);
  const done = useSignal("");
  const error = useSignal<unknown>(null);
  const busy = useSignal(false);
  useEffect(() => {
    void (async () => {
      try {
        const me = await api<Me>("GET", "/auth/me/");
        invitation.value = me.invitations.find((i) => i.id === id) ?? null;
      } catch (e) {
        error.value = e;
      }
    })();
  }, [id]);
  const answer = async (verb: "accept" | "decline") => {
    busy.value = true;
    try {
      const joined = await api<Workspace | null>("POST", `/invitations/${id}/${verb}/`);
      done.value = joined ? `You joined ${joined.name} as ${joined.role}.` : "You declined the invitation.";
      error.value = null;
      if (joined) await loadAgents();
    } catch (e) {
      error.value = e;
    } finally {
      busy.value = false;
    }
  };
  const i = invitation.value;
  return (
    <section class="card invitation" aria-labelledby="invitation-title">
      <h1 id="invitation-title">Invitation</h1>
      {error.value ? <ErrorBox error={error.value} /> : null}
      {done.value ? (
        <>
          <p role="status">{done.value}</p>
          <p>
            <a href="#/">Go to your agents</a>
          </p>
        </>
      ) : i === undefined ? (
        !error.value && <p class="loading">Loading…</p>
      ) : i === null ? (
        <p>
          There is no pending invitation here for {session.value?.user.email}: it may be for another e-mail
          address, expired, revoked or already answered.
        </p>
      ) : (
        <>
          <p>
            {i.invitedBy} invited you to join <strong>{i.workspaceName}</strong> as {i.role}.
          </p>
          <div class="actions">
            <button type="button" class="primary" disabled={busy.value} onClick={() => answer("accept")}>
              Accept
            </button>
            <button type="button" disabled={busy.value} onClick={() => answer("decline")}>
              Decline
            </button>
          </div>
        </>
      )}
    </section>
  );
}
