/**
 * An AbortController that follows other signals until disposed. Not AbortSignal.any: on Node 20
 * a long-lived source (the server's stop signal) keeps every signal derived from it alive.
 */
export function linkedAbort(sources: readonly AbortSignal[]): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const onAbort = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener("abort", onAbort, { once: true });
  }
  return {
    controller,
    dispose() {
      for (const source of sources) source.removeEventListener("abort", onAbort);
    },
  };
}
