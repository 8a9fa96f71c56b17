// Test-only pack: the tools, resources and prompts that the server scenarios of
// @modelcontextprotocol/conformance 0.1.16 call by name, with the results they check.
// Everything goes through @toolshed/schema and the Toolshed runtime, so a passing suite
// shows what the runtime itself sends.
import { ToolError } from "@toolshed/errors";
import {
  definePack,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  fullResult,
} from "@toolshed/schema";
import { z } from "zod";

/** 1x1 red pixel, PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/** Eight samples of silence, 8 kHz mono 8-bit PCM WAV. */
export const WAV_BASE64 = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const noArgs = z.object({});
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

const text = (value) => ({ type: "text", text: value });
const image = () => ({ type: "image", data: PNG_BASE64, mimeType: "image/png" });

// --- tools ---------------------------------------------------------------------------------

const simpleText = defineTool({
  name: "test_simple_text",
  description: "Returns one fixed text block.",
  input: noArgs,
  handler: () => "This is a simple text response for testing.",
});

const imageContent = defineTool({
  name: "test_image_content",
  description: "Returns one PNG image block.",
  input: noArgs,
  handler: () => fullResult({ content: [image()] }),
});

const audioContent = defineTool({
  name: "test_audio_content",
  description: "Returns one WAV audio block.",
  input: noArgs,
  handler: () => fullResult({ content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] }),
});

const embeddedResource = defineTool({
  name: "test_embedded_resource",
  description: "Returns one embedded text resource.",
  input: noArgs,
  handler: () =>
    fullResult({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
});

const resourceLink = defineTool({
  name: "test_resource_link",
  description:
    "Returns a link to the static text resource (not called by the suite; checks resource_link passthrough).",
  input: noArgs,
  handler: () =>
    fullResult({
      content: [
        text("A link to the static text resource:"),
        {
          type: "resource_link",
          uri: "test://static-text",
          name: "static-text",
          mimeType: "text/plain",
          description: "The static text resource",
        },
      ],
    }),
});

const multipleContentTypes = defineTool({
  name: "test_multiple_content_types",
  description: "Returns text, an image and an embedded JSON resource in one result.",
  input: noArgs,
  handler: () =>
    fullResult({
      content: [
        text("Multiple content types test:"),
        image(),
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
});

const toolWithLogging = defineTool({
  name: "test_tool_with_logging",
  description: "Sends three info log notifications about 50 ms apart while it runs.",
  input: noArgs,
  handler: async (_args, ctx) => {
    await ctx.log("info", "Tool execution started");
    await sleep(50, ctx.signal);
    await ctx.log("info", "Tool processing data");
    await sleep(50, ctx.signal);
    await ctx.log("info", "Tool execution completed");
    return "Tool with logging executed successfully";
  },
});

const errorHandling = defineTool({
  name: "test_error_handling",
  description: "Always fails with a tool error.",
  input: noArgs,
  handler: () => {
    throw new ToolError("This tool intentionally returns an error for testing");
  },
});

const toolWithProgress = defineTool({
  name: "test_tool_with_progress",
  description: "Reports progress 0, 50 and 100 of 100, about 50 ms apart, when given a progress token.",
  input: noArgs,
  handler: async (_args, ctx) => {
    await ctx.progress(0, 100, "Started");
    await sleep(50, ctx.signal);
    await ctx.progress(50, 100, "Half way");
    await sleep(50, ctx.signal);
    await ctx.progress(100, 100, "Done");
    return "Tool with progress executed successfully";
  },
});

const sampling = defineTool({
  name: "test_sampling",
  description: "Asks the client's model (sampling/createMessage) to answer a prompt.",
  input: z.object({ prompt: z.string().describe("The prompt to send to the LLM") }),
  handler: async ({ prompt }, ctx) => {
    const result = await ctx.createMessage({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100,
    });
    const answer = result.content?.type === "text" ? result.content.text : JSON.stringify(result.content);
    return `LLM response: ${answer}`;
  },
});

const elicitation = defineTool({
  name: "test_elicitation",
  description: "Asks the user (elicitation/create) for a username and an email address.",
  input: z.object({ message: z.string().describe("The message to show the user") }),
  handler: async ({ message }, ctx) => {
    const result = await ctx.elicitInput({
      message,
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      },
    });
    return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
});

const elicitationDefaults = defineTool({
  name: "test_elicitation_sep1034_defaults",
  description: "Asks the user for input with a default for every primitive type (SEP-1034).",
  input: noArgs,
  handler: async (_args, ctx) => {
    const result = await ctx.elicitInput({
      message: "Please review and update the form fields with defaults",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: {
            type: "string",
            description: "User status",
            enum: ["active", "inactive", "pending"],
            default: "active",
          },
          verified: { type: "boolean", description: "Verification status", default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
});

const elicitationEnums = defineTool({
  name: "test_elicitation_sep1330_enums",
  description: "Asks the user for input with all five enum forms (SEP-1330).",
  input: noArgs,
  handler: async (_args, ctx) => {
    const result = await ctx.elicitInput({
      message: "Please select options from the enum fields",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: {
            type: "string",
            description: "Untitled single-select",
            enum: ["option1", "option2", "option3"],
          },
          titledSingle: {
            type: "string",
            description: "Titled single-select",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            description: "Legacy titled enum",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            description: "Untitled multi-select",
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            description: "Titled multi-select",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  },
});

// --- resources -----------------------------------------------------------------------------

const staticText = defineResource({
  uri: "test://static-text",
  name: "static-text",
  description: "A fixed text resource.",
  mimeType: "text/plain",
  read: () => "This is the content of the static text resource.",
});

const staticBinary = defineResource({
  uri: "test://static-binary",
  name: "static-binary",
  description: "A fixed binary resource (PNG).",
  mimeType: "image/png",
  read: () => ({ blob: PNG_BASE64 }),
});

const watched = defineResource({
  uri: "test://watched-resource",
  name: "watched-resource",
  description: "A resource clients may subscribe to.",
  mimeType: "text/plain",
  read: () => "Watched resource content",
});

const TEMPLATE_IDS = ["123", "456", "789"];

const templateData = defineResourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "template-data",
  description: "JSON data for one id.",
  mimeType: "application/json",
  params: z.object({ id: z.string().min(1).describe("Any id, such as 123") }),
  complete: { id: (value) => TEMPLATE_IDS.filter((id) => id.startsWith(value)) },
  read: ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
});

// --- prompts -------------------------------------------------------------------------------

const simplePrompt = definePrompt({
  name: "test_simple_prompt",
  description: "A prompt without arguments.",
  args: noArgs,
  render: () => "This is a simple prompt for testing.",
});

const ARG1_VALUES = ["paris", "park", "party", "test", "testing", "testValue1"];

const promptWithArguments = definePrompt({
  name: "test_prompt_with_arguments",
  description: "A prompt with two required arguments.",
  args: z.object({
    arg1: z.string().describe("First test argument"),
    arg2: z.string().describe("Second test argument"),
  }),
  complete: { arg1: (value) => ARG1_VALUES.filter((v) => v.startsWith(value)) },
  render: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
});

const promptWithEmbeddedResource = definePrompt({
  name: "test_prompt_with_embedded_resource",
  description: "A prompt that embeds a resource.",
  args: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
  render: ({ resourceUri }) => [
    {
      role: "user",
      content: {
        type: "resource",
        resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
      },
    },
    { role: "user", content: text("Please process the embedded resource above.") },
  ],
});

const promptWithImage = definePrompt({
  name: "test_prompt_with_image",
  description: "A prompt with an image.",
  args: noArgs,
  render: () => [
    { role: "user", content: image() },
    { role: "user", content: text("Please analyze the image above.") },
  ],
});

export const fixturePack = definePack({
  name: "conformance-fixtures",
  tools: [
    simpleText,
    imageContent,
    audioContent,
    embeddedResource,
    resourceLink,
    multipleContentTypes,
    toolWithLogging,
    errorHandling,
    toolWithProgress,
    sampling,
    elicitation,
    elicitationDefaults,
    elicitationEnums,
  ],
  resources: [staticText, staticBinary, watched, templateData],
  prompts: [simplePrompt, promptWithArguments, promptWithEmbeddedResource, promptWithImage],
});
