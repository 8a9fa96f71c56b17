import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { NotFoundError } from "@toolshed/errors";
import { definePack, definePrompt, defineResource, defineResourceTemplate } from "@toolshed/schema";
import { attachPack, connectInMemory, createLogger, createServer } from "@toolshed/server";
import { z } from "zod";

const recipes = new Map([
  ["pancakes", "flour, milk, eggs"],
  ["omelette", "eggs, butter"],
]);
const titles = () => [...recipes.keys()];
const noRecipe = (title: string) => new NotFoundError(`No recipe '${title}'. Known titles: ${titles().join(", ")}`);

// A fixed resource at one URI. read returns text, or {text | blob, mimeType} items.
const recipeIndex = defineResource({
  uri: "recipes://index",
  name: "recipe_index",
  description: "Every recipe title, one per line",
  mimeType: "text/plain",
  read: () => titles().join("\n"),
});

// A family of resources: the template's variables are a Zod object, checked before read runs.
const recipe = defineResourceTemplate({
  uriTemplate: "recipe://{title}",
  name: "recipe",
  description: "One recipe's ingredients, by title",
  mimeType: "text/plain",
  params: z.object({ title: z.string().min(1).describe("Recipe title such as pancakes") }),
  list: () => titles().map((title) => ({ uri: `recipe://${title}`, name: title })),
  complete: { title: (typed) => titles().filter((title) => title.startsWith(typed)) },
  read: ({ title }) => {
    const ingredients = recipes.get(title);
    if (ingredients === undefined) throw noRecipe(title);
    return ingredients;
  },
});

// A prompt. Clients send its arguments as strings, so a number is coerced; each one has a description.
const shoppingList = definePrompt({
  name: "shopping_list",
  description: "Ask for a shopping list for one recipe",
  args: z.object({
    title: z.string().describe("Recipe title such as pancakes"),
    servings: z.coerce.number().int().min(1).max(12).default(2).describe("How many people to cook for, 1 to 12"),
  }),
  complete: { title: (typed) => titles().filter((title) => title.startsWith(typed)) },
  render: ({ title, servings }) => {
    const ingredients = recipes.get(title);
    if (ingredients === undefined) throw noRecipe(title);
    return `Write a shopping list for ${title} for ${servings} people. Ingredients for two: ${ingredients}.`;
  },
});

const pack = definePack({ name: "recipes", resources: [recipeIndex, recipe], prompts: [shoppingList] });

// On Toolshed's server (the whole contract, both protocol eras), with an SDK Client in memory.
const server = createServer({
  name: "recipes",
  version: "1.0.0",
  packs: [pack],
  logger: createLogger({ level: "warn" }),
});
const client = await connectInMemory(server);

// resources: recipes://index, then what the template lists: recipe://pancakes, recipe://omelette
export const listed = await client.listResources();

// contents: [{ uri: "recipes://index", mimeType: "text/plain", text: "pancakes\nomelette" }]
export const index = await client.readResource({ uri: "recipes://index" });

// contents: [{ uri: "recipe://pancakes", mimeType: "text/plain", text: "flour, milk, eggs" }]
export const pancakes = await client.readResource({ uri: "recipe://pancakes" });

// completion.values: ["omelette"]
export const completed = await client.complete({
  ref: { type: "ref/resource", uri: "recipe://{title}" },
  argument: { name: "title", value: "om" },
});

// messages: [{ role: "user", content: { type: "text", text: "Write a shopping list for pancakes for 4 people. …" } }]
export const prompt = await client.getPrompt({
  name: "shopping_list",
  arguments: { title: "pancakes", servings: "4" },
});

// JSON-RPC error -32602: "Invalid arguments for prompt shopping_list:\nservings: must be at most 12 (got 40)"
export const tooMany = await client
  .getPrompt({ name: "shopping_list", arguments: { title: "pancakes", servings: "40" } })
  .catch((error: unknown) => error);

// JSON-RPC error -32002 (2025 clients): "No recipe 'waffles'. Known titles: pancakes, omelette"
export const missing = await client.readResource({ uri: "recipe://waffles" }).catch((error: unknown) => error);

await client.close();
await server.close();

// Or on an SDK McpServer you already have: attachPack registers the same resources and prompts.
const mcpServer = new McpServer({ name: "my-app", version: "1.0.0" });
attachPack(mcpServer, pack);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await mcpServer.connect(serverSide);
const sdkClient = new Client({ name: "example", version: "1.0.0" });
await sdkClient.connect(clientSide);

// contents: [{ uri: "recipe://omelette", mimeType: "text/plain", text: "eggs, butter" }]
export const viaSdk = await sdkClient.readResource({ uri: "recipe://omelette" });

// servings left out: the default, 2
export const promptViaSdk = await sdkClient.getPrompt({ name: "shopping_list", arguments: { title: "omelette" } });

await sdkClient.close();
await mcpServer.close();
