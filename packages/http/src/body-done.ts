/**
 * Calls `done` once the response has been sent: at once for a plain body, at the end (or
 * cancel) of a streamed one, so logs and shutdown see SSE answers through to their end.
 */
export function whenBodyDone(response: Response, done: () => void): Response {
  const body = response.body;
  if (!body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    done();
    return response;
  }
  const reader = body.getReader();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  const wrapped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(wrapped, { status: response.status, statusText: response.statusText, headers: response.headers });
}
