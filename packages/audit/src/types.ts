/** What to audit: a command that serves MCP over stdio, or a Streamable HTTP endpoint. */
export type AuditTarget =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

export interface AuditOptions {
  /** fast-check seed for generated arguments; the same seed sends the same calls (default 42). */
  seed?: number;
  /** Hostile strings tried per probed tool (default 20). */
  runs?: number;
  /** Probe tools not marked `readOnlyHint: true` too (default false: they may change data). */
  allowWrites?: boolean;
  /** Longest wait for one answer, in milliseconds (default 10000). */
  timeoutMs?: number;
  /** Most bytes read for one answer, or for all pages of one list (default 4 MiB); a longer answer closes the connection. */
  maxAnswerBytes?: number;
}

export type Status = "pass" | "warn" | "fail" | "skip";

/** One observation behind a rule's status: which tool (or resource, prompt, server) and what it did. */
export interface Finding {
  status: Exclude<Status, "skip">;
  /** A tool, prompt or resource name, or "server". */
  subject: string;
  message: string;
}

export interface RuleResult {
  id: string;
  title: string;
  /** The rules of CONTRACT.md this checks. */
  contract: string[];
  status: Status;
  /** Why a rule was skipped, or a one-line summary. */
  summary: string;
  findings: Finding[];
}

export interface ProtocolInfo {
  /** The revision the audit's requests spoke: 2026-07-28 when the server offers it, else what initialize settled on. */
  audited: string;
  /** The revision the 2025-era handshake (`initialize`) settled on, when the audit used it. */
  negotiated?: string;
  /** The revisions `server/discover` (2026-07-28) listed, if the server answered it. */
  discovered?: string[];
  /** Plain words: which eras the server speaks, as far as the audit could tell. */
  eras: string;
}

export interface AuditReport {
  target: string;
  server: { name?: string; version?: string };
  protocol: ProtocolInfo;
  counts: { tools: number; resources: number; prompts: number; probedTools: number; calls: number };
  options: { seed: number; runs: number; allowWrites: boolean };
  rules: RuleResult[];
  /** 0–100: each scored rule counts by its weight, a warning half. */
  score: number;
}
