import { ERROR_META_KEY, type ErrorInfo } from "@toolshed/errors";

/** A tool result: CallToolResult of either SDK, or the result of a raw JSON-RPC answer. */
interface ResultLike {
  content?: unknown;
  _meta?: Record<string, unknown>;
}

/** The text of a tool result's content blocks, joined by newlines (non-text blocks count as ""). */
export function resultText(result: unknown): string {
  const content = ((result as ResultLike | undefined)?.content ?? []) as Array<{ text?: string }>;
  return content.map((block) => block.text ?? "").join("\n");
}

/** The error class an error result carries under `_meta` (C9); undefined for a success. */
export function errorMeta(result: unknown): ErrorInfo | undefined {
  return (result as ResultLike | undefined)?._meta?.[ERROR_META_KEY] as ErrorInfo | undefined;
}
