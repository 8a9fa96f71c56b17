import { definePack, defineTool, fullResult } from "@toolshed/schema";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { z } from "zod";

// C1: an object schema. structuredContent is the value, the text block the same value as JSON.
const getNote = defineTool({
  name: "get_note",
  description: "Return one note by its exact title.",
  input: z.object({ title: z.string().describe("Exact title") }),
  output: z.object({ title: z.string(), body: z.string(), words: z.number().int() }),
  handler: ({ title }) => ({ title, body: "milk, eggs", words: 2 }),
});

// C2: anything but an object is wrapped as {result}; the published output schema says so too.
const countNotes = defineTool({
  name: "count_notes",
  description: "How many notes there are.",
  input: z.object({}),
  output: z.number().int(),
  handler: () => 3,
});

// C3: output is checked before it is sent. This handler breaks its own schema.
const brokenNote = defineTool({
  name: "broken_note",
  description: "A tool whose handler returns the wrong shape.",
  input: z.object({}),
  output: z.object({ title: z.string() }),
  // @ts-expect-error title must be a string; TypeScript catches it, and so does the runtime.
  handler: () => ({ title: 42 }),
});

// C4: a full result, for images, audio, embedded resources and links. Structured content is still checked.
const chart = defineTool({
  name: "notes_chart",
  description: "A chart of notes per week, as a PNG image.",
  input: z.object({}),
  output: z.object({ weeks: z.number() }),
  handler: () =>
    fullResult({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource_link", uri: "note://groceries", name: "groceries" },
      ],
      structuredContent: { weeks: 4 },
    }),
});

const server = createServer({
  name: "shapes",
  version: "1.0.0",
  packs: [definePack({ name: "shapes", tools: [getNote, countNotes, brokenNote, chart] })],
  logger: createLogger({ level: "silent" }),
});
const client = await connectInMemory(server);

// outputSchema of count_notes: { type: "object", properties: { result: { type: "integer", … } }, required: ["result"] }
export const listed = (await client.listTools()).tools;

// structuredContent: { title: "groceries", body: "milk, eggs", words: 2 }
// content: [{ type: "text", text: '{\n  "title": "groceries",\n  "body": "milk, eggs",\n  "words": 2\n}' }]
export const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });

// structuredContent: { result: 3 }, content: [{ type: "text", text: "3" }]
export const count = await client.callTool({ name: "count_notes", arguments: {} });

// isError: true, text: "Error executing tool broken_note (ref 5e0c1a2b)"; nothing of the bad value is sent
export const broken = await client.callTool({ name: "broken_note", arguments: {} });

// content: the image and the link as given; structuredContent: { weeks: 4 }
export const image = await client.callTool({ name: "notes_chart", arguments: {} });

await client.close();
await server.close();
