/**
 * The public API of @toolshed/audit. Any new export added here becomes public API; use named
 * exports, not wildcards.
 */
export { auditServer, DEFAULTS } from "./audit.js";
export { ConnectError } from "./connect.js";
export { formatReport, scoreOf } from "./report.js";
export { RULES, type RuleId } from "./rules.js";
export type { AuditOptions, AuditReport, AuditTarget, Finding, ProtocolInfo, RuleResult, Status } from "./types.js";
