import { NotFoundError, toToolErrorResult } from "@toolshed/errors";

async function getAccountResult(accountId: string, load: (id: string) => Promise<{ name: string } | undefined>) {
  try {
    const account = await load(accountId);
    if (!account) throw new NotFoundError(`No account '${accountId}'`);
    return { content: [{ type: "text" as const, text: account.name }] };
  } catch (error) {
    // ToolError: its message; timeouts, resets, HTTP 429/5xx, busy databases: classified and
    // retryable; anything else: "Error executing tool crm_get_account (ref 7f3a9c21)".
    return toToolErrorResult(error, "crm_get_account");
  }
}

export { getAccountResult };
