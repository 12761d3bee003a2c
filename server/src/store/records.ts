import type {
  Agent,
  ApiKey,
  DataSource,
  Handoff,
  HandoffSetting,
  Message,
  Role,
  SourceDocument,
  SyncRun,
} from "@lore/shared";

/** Stored shapes. Public shapes come from `@lore/shared`; these add what never leaves the server. */
export interface UserRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string;
  /** Bumped by logout: every token carrying an older version is refused. */
  tokenVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  personal: boolean;
  createdAt: string;
  /** The workspace's own model server, set in the console; none before it is set. */
  modelProvider?: ModelProviderRecord | undefined;
}

export interface ModelProviderRecord {
  kind: "openai" | "compatible";
  /** The API base including `/v1`. */
  baseUrl: string;
  /** Sealed with the server's SecretBox (`enc:v1:…`); null for servers that take no key. */
  apiKey: string | null;
  updatedAt: string;
}

export interface MembershipRecord {
  id: string;
  workspaceId: string;
  userId: string;
  role: Role;
  createdAt: string;
}

/** Agents stored before the handoff setting existed have none (read as `{ mode: "none" }`). */
export type AgentRecord = Omit<Agent, "status" | "handoff" | "effectiveRetrievalMode"> & {
  handoff?: HandoffSetting;
};

/** A visitor's request for a person, stored before anyone is notified. */
export interface HandoffRecord extends Handoff {
  workspaceId: string;
  /** The widget visitor who sent it. */
  visitorId: string;
}

export interface ApiKeyRecord extends ApiKey {
  workspaceId: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
}

export interface DataSourceRecord extends Omit<DataSource, "config"> {
  /** Stored config; secret fields (Notion token) are encrypted as `enc:v1:…`. */
  config: Record<string, unknown>;
  /** Set when deleted: never retrieved again, purge pending. */
  deletedAt: string | null;
  /** The data source has been ready at least once (agents stop "processing"). */
  everReady: boolean;
}

export interface DocumentRecord extends SourceDocument {
  workspaceId: string;
  /** Identity inside the source (file id, canonical URL, Notion page id, entry title). */
  externalId: string;
  /** For uploaded files: the stored file name under the data dir. */
  storedFile: string | null;
}

export interface SyncRunRecord extends SyncRun {
  workspaceId: string;
  /** Lease: the worker holding the job must finish or renew before this time. */
  leaseUntil: string | null;
  nextAttemptAt: string;
}

export interface ConversationRecord {
  id: string;
  agentId: string;
  workspaceId: string;
  title: string;
  messageCount: number;
  /** Set by the server from the route and caller (`console`: an owner's session, the console's Try it). */
  channel: "api" | "widget" | "console";
  /** Visitor identity for widget conversations (from the signed visitor token). */
  visitorId: string | null;
  /**
   * Who started a console conversation (`user:<id>`): only they continue it. Absent on other
   * channels and on console conversations stored before it (any console session continues those).
   */
  startedBy?: string | null;
  /** The page and device class the widget sent with the first message; absent before they existed. */
  pageUrl?: string | null;
  device?: "mobile" | "tablet" | "desktop" | null;
  /** Absent on conversations stored before statuses existed: open. */
  status?: "open" | "resolved";
  resolvedAt?: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * Counts the record's changes (created 1, each turn and status change one more): a replayed
   * journal entry never replaces a state with a higher one. Absent on records stored before it (0).
   */
  revision?: number;
}

export type MessageRecord = Message & {
  agentId: string;
  workspaceId: string;
  feedbackComment: string | null;
  /** How sure an answer was (the answer contract); absent on messages stored before it. */
  outcome?: "answered" | "uncertain" | "fallback" | null;
  confidence?: number | null;
  /** Counts the message's ratings (absent: never rated), as `ConversationRecord.revision`. */
  revision?: number;
};

export interface MetaRecord {
  id: string;
  schemaVersion: number;
}

/** A refresh token spent by rotation: presenting it again after the grace period means it leaked. */
export interface UsedTokenRecord {
  id: string;
  userId: string;
  expiresAt: string;
  /** When it was exchanged (absent on records written before the reuse grace existed). */
  spentAt?: string;
}

/** An invitation to join a workspace, until the invitee (whoever holds the email) accepts or declines. */
export interface InvitationRecord {
  id: string;
  workspaceId: string;
  /** Lower-cased; matched against the logged-in user's email, registered or not when invited. */
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}
