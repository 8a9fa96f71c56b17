/** The body as text, or undefined when it is larger than `maxBytes` (then it is not read further). */
export async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Why a fetch of `endpoint` (such as "the JWKS endpoint") at `url` threw, in words for the log. */
export function fetchFailure(error: unknown, endpoint: string, url: string, timeoutMs: number): string {
  const name = (error as Error | undefined)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return `${endpoint} ${url} did not answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail =
    typeof cause?.code === "string"
      ? cause.code
      : typeof cause?.message === "string"
        ? cause.message
        : String((error as Error | undefined)?.message ?? error);
  return `could not reach ${endpoint} ${url} (${detail})`;
}
