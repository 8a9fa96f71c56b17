// What a failed request or start says, in words for the report: messages and codes from an error's cause chain.

/** The first string `code` along an error's cause chain (ECONNREFUSED, ENOENT). */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let i = 0; i < 5 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function innermostMessage(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message.split("\n")[0] || "the request failed" : "the request failed";
}

/** An error as one line of words: its innermost message, and the system code behind it when the message lacks it. */
export function failureWords(error: unknown): string {
  const message = innermostMessage(error);
  const code = causeCode(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
