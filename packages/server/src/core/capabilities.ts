import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { Era } from "../era.js";
import type { Runtime } from "../runtime/runtime.js";

/**
 * What the server offers. A 2025 connection can be told of changes; a stateless 2025 request
 * cannot (no stream outlives it); a 2026-07-28 client hears them through subscriptions/listen.
 */
export function capabilitiesOf(runtime: Runtime, era: Era, connection: boolean, tasks = false): ServerCapabilities {
  const live = era === "modern" || connection;
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, logging: {} };
  if (runtime.hasResources) capabilities.resources = { listChanged: live, ...(live ? { subscribe: true } : {}) };
  if (runtime.hasPrompts) capabilities.prompts = { listChanged: false };
  if (runtime.hasResources || runtime.hasPrompts) capabilities.completions = {};
  // The tasks extension exists only for 2026-07-28 requests (its envelope carries the opt-in).
  if (tasks && era === "modern") {
    (capabilities as { extensions?: Record<string, object> }).extensions = { "io.modelcontextprotocol/tasks": {} };
  }
  return capabilities;
}
