// Test-only pack: the tools, resources and prompts that the server scenarios of
// @modelcontextprotocol/conformance 0.2.0-alpha.12 call by name, with the results they check,
// for both requirement sets (2025-11-25 and 2026-07-28). Everything goes through
// @toolshed/schema and the Toolshed runtime, so a passing suite shows what the runtime itself
// sends: the same handler asks the client over the session (2025) or answers `input_required`
// and runs again with the answers (2026-07-28 multi round-trip).
//
// `test_custom_header` marks its parameter x-mcp-header (Mcp-Param-Region, checked against the body).
// `json_schema_2020_12_tool` is a JSON Schema 2020-12 document, published as written ($schema,
// $defs with $anchor, $ref, allOf/anyOf, if/then/else) and checked with it.
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

// --- 2026-07-28 diagnostics (server-stateless) --------------------------------------------

const missingCapability = defineTool({
  name: "test_missing_capability",
  description: "Asks the client's model (sampling); a 2026-07-28 request that does not declare sampling gets -32021.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const result = await ctx.createMessage({
      messages: [{ role: "user", content: text("Say hello.") }],
      maxTokens: 20,
    });
    return `Sampling answered: ${result.content?.type === "text" ? result.content.text : result.content?.type}`;
  },
});

const streamingElicitation = defineTool({
  name: "test_streaming_elicitation",
  description:
    "Reports progress, then asks the user for a name: on 2026-07-28 the question is an input_required result, never a request on the response stream.",
  input: noArgs,
  handler: async (_args, ctx) => {
    await ctx.progress(50, 100, "Asking the user");
    const answer = await ctx.elicitInput(
      {
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
      { key: "user_name" },
    );
    return `Streaming complete: action=${answer.action}`;
  },
});

const loggingTool = defineTool({
  name: "test_logging_tool",
  description:
    "Logs one info message through ctx.log; a 2026-07-28 request without a log level in _meta gets no notifications/message.",
  input: noArgs,
  handler: async (_args, ctx) => {
    await ctx.log("info", "Diagnostic log message");
    return "Logging evaluated";
  },
});

// --- 2026-07-28 multi round-trip (input-required-result-*) -----------------------------------
// The keys are the ones the scenarios' descriptions give; user_name is the one they check.

/** A yes/no question, as the request-state scenarios ask it. */
const askConfirmation = {
  message: "Please confirm",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
};

const askName = (message) => ({
  message,
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});
const sampleText = (result) => (result.content?.type === "text" ? result.content.text : "");

/** The scenario's document, every property described (C13). */
const contactSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: {
        street: { type: "string", description: "Street and number" },
        city: { type: "string", description: "City" },
      },
    },
  },
  properties: {
    name: { type: "string", description: "Full name" },
    address: { $ref: "#/$defs/address", description: "Postal address" },
    contactMethod: { type: "string", enum: ["phone", "email"], description: "How to reach them" },
    phone: { type: "string", description: "Phone number" },
    email: { type: "string", description: "Email address" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

const jsonSchema202012 = defineTool({
  name: "json_schema_2020_12_tool",
  description: "Records a contact; its input is a JSON Schema 2020-12 document.",
  input: contactSchema,
  handler: (args) => `Recorded ${args.name ?? "a contact"}`,
});

// A parameter a 2026-07-28 client repeats as the Mcp-Param-Region header (SEP-2243).
const customHeader = defineTool({
  name: "test_custom_header",
  description: "Echoes a region that also travels in the Mcp-Param-Region header.",
  input: z.object({ region: z.string().describe("Region name").meta({ "x-mcp-header": "Region" }) }),
  handler: ({ region }) => `Region ${region}`,
});

const irrElicitation = defineTool({
  name: "test_input_required_result_elicitation",
  description: "Asks the user for a name (key user_name), then greets them.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicitInput(askName("What is your name?"), { key: "user_name" });
    return `Hello, ${answer.content?.name ?? "stranger"}!`;
  },
});

const irrSampling = defineTool({
  name: "test_input_required_result_sampling",
  description: "Asks the client's model a question (key capital_question) and returns its answer.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const answer = await ctx.createMessage(
      { messages: [{ role: "user", content: text("What is the capital of France?") }], maxTokens: 100 },
      { key: "capital_question" },
    );
    return `Sampling response: ${sampleText(answer)}`;
  },
});

const irrListRoots = defineTool({
  name: "test_input_required_result_list_roots",
  description: "Asks the client for its roots (key client_roots) and lists them.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const { roots } = await ctx.listRoots({ key: "client_roots" });
    return `Found ${roots.length} root(s): ${roots.map((r) => r.uri).join(", ")}`;
  },
});

const irrRequestState = defineTool({
  name: "test_input_required_result_request_state",
  description: "Asks for a confirmation (key confirm); the answer comes back with the signed requestState.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicitInput(askConfirmation, { key: "confirm" });
    return `state-ok: confirmed=${answer.content?.ok === true}`;
  },
});

const irrMultipleInputs = defineTool({
  name: "test_input_required_result_multiple_inputs",
  description:
    "Asks three questions in one round: a name (user_name), a greeting (greeting) and the roots (client_roots).",
  input: noArgs,
  handler: async (_args, ctx) => {
    // Asked together, so the client gets all three in one input_required result.
    const [name, greeting, { roots }] = await Promise.all([
      ctx.elicitInput(askName("What is your name?"), { key: "user_name" }),
      ctx.createMessage(
        { messages: [{ role: "user", content: text("Generate a greeting") }], maxTokens: 50 },
        { key: "greeting" },
      ),
      ctx.listRoots({ key: "client_roots" }),
    ]);
    return `${sampleText(greeting)} ${name.content?.name ?? "stranger"} (${roots.length} root(s))`;
  },
});

const irrMultiRound = defineTool({
  name: "test_input_required_result_multi_round",
  description: "Asks two questions in two rounds: a name (step1), then a favourite colour (step2).",
  input: noArgs,
  handler: async (_args, ctx) => {
    const name = await ctx.elicitInput(askName("Step 1: What is your name?"), { key: "step1" });
    const color = await ctx.elicitInput(
      {
        message: "Step 2: What is your favorite color?",
        requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      },
      { key: "step2" },
    );
    return `${name.content?.name ?? "stranger"} likes ${color.content?.color ?? "no colour"}`;
  },
});

const irrTamperedState = defineTool({
  name: "test_input_required_result_tampered_state",
  description: "Asks for a confirmation (key confirm); a requestState that was changed is refused (-32602).",
  input: noArgs,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicitInput(askConfirmation, { key: "confirm" });
    return `confirmed=${answer.content?.ok === true}`;
  },
});

const irrCapabilities = defineTool({
  name: "test_input_required_result_capabilities",
  description:
    "Asks only what the client declared it can answer (elicitation, sampling, roots), read from ctx.clientCapabilities.",
  input: noArgs,
  handler: async (_args, ctx) => {
    const can = ctx.clientCapabilities ?? {};
    const questions = [];
    if (can.elicitation) questions.push(ctx.elicitInput(askName("What is your name?"), { key: "user_name" }));
    if (can.sampling) {
      questions.push(
        ctx.createMessage(
          { messages: [{ role: "user", content: text("Generate a greeting") }], maxTokens: 50 },
          { key: "greeting" },
        ),
      );
    }
    if (can.roots) questions.push(ctx.listRoots({ key: "client_roots" }));
    if (questions.length === 0) return "The client declared nothing it could be asked.";
    const answers = await Promise.all(questions);
    return `Got ${answers.length} answer(s)`;
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

const irrPrompt = definePrompt({
  name: "test_input_required_result_prompt",
  description: "Asks the user for context (key user_context), then renders a prompt with it.",
  args: noArgs,
  render: async (_args, ctx) => {
    if (!ctx.elicitInput) return "No context: this transport cannot ask the user.";
    const answer = await ctx.elicitInput(
      {
        message: "What context should the prompt use?",
        requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
      },
      { key: "user_context" },
    );
    return `Answer with this context in mind: ${answer.content?.context ?? "(none given)"}`;
  },
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
    missingCapability,
    streamingElicitation,
    loggingTool,
    irrElicitation,
    irrSampling,
    irrListRoots,
    irrRequestState,
    irrMultipleInputs,
    irrMultiRound,
    irrTamperedState,
    irrCapabilities,
    jsonSchema202012,
    customHeader,
  ],
  resources: [staticText, staticBinary, watched, templateData],
  prompts: [simplePrompt, promptWithArguments, promptWithEmbeddedResource, promptWithImage, irrPrompt],
});
