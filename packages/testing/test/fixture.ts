// A small pack for the kit's own tests: a read-only lookup, a search with bounds and nested
// arguments, a write, and (on request) a planted bug.
import { ConflictError, NotFoundError, UnavailableError } from "@toolshed/errors";
import { definePack, defineTool, type Pack } from "@toolshed/schema";
import { z } from "zod";

const BOOKS = new Map([
  ["dune", { title: "Dune", year: 1965 }],
  ["emma", { title: "Emma", year: 1815 }],
]);

export const getBook = defineTool({
  name: "get_book",
  description: "Return one book by its id.",
  input: z.object({ id: z.string().min(1).max(40).describe("Book id, e.g. dune") }),
  output: z.object({ title: z.string(), year: z.number().int() }),
  annotations: { readOnlyHint: true },
  handler: ({ id }) => {
    const book = BOOKS.get(id);
    if (!book) throw new NotFoundError(`No book '${id}'. Known ids: ${[...BOOKS.keys()].join(", ")}`);
    return book;
  },
});

export const searchBooks = defineTool({
  name: "search_books",
  description: "Search books by words in their title.",
  input: z.object({
    query: z.string().max(100).describe("Words to match"),
    limit: z.number().int().min(1).max(50).default(10).describe("Most books to return"),
    filters: z
      .object({ tags: z.array(z.string().min(1).max(20)).max(5).optional().describe("Tags the book must have") })
      .optional()
      .describe("Narrower search"),
  }),
  output: z.array(z.string()),
  annotations: { readOnlyHint: true },
  handler: ({ query, limit }) =>
    [...BOOKS.values()]
      .filter((b) => b.title.toLowerCase().includes(query.toLowerCase()))
      .map((b) => b.title)
      .slice(0, limit),
});

export function addBookTool(shelf: Map<string, string>) {
  return defineTool({
    name: "add_book",
    description: "Add a book to the shelf.",
    input: z.object({
      id: z.string().min(1).max(40).describe("New book id"),
      title: z.string().max(200).describe("Title"),
    }),
    output: z.object({ id: z.string(), added: z.boolean() }),
    annotations: { readOnlyHint: false, idempotentHint: false },
    handler: ({ id, title }) => {
      if (shelf.has(id)) throw new ConflictError(`Book '${id}' is already on the shelf`);
      shelf.set(id, title);
      return { id, added: true };
    },
  });
}

export const flakyTool = defineTool({
  name: "flaky",
  description: "Always temporarily unavailable.",
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  annotations: { readOnlyHint: true },
  handler: () => {
    throw new UnavailableError("the catalogue is down");
  },
});

/** The fixture pack; `planted` adds a tool that crashes on years after 2000. */
export function booksPack(options: { planted?: boolean; shelf?: Map<string, string>; close?: () => void } = {}): Pack {
  const tools = [getBook, searchBooks, addBookTool(options.shelf ?? new Map()), flakyTool];
  if (options.planted) {
    tools.push(
      defineTool({
        name: "books_since",
        description: "Count books published since a year.",
        input: z.object({ year: z.number().int().min(0).max(3000).describe("First year to count") }),
        output: z.object({ count: z.number().int() }),
        annotations: { readOnlyHint: true },
        handler: ({ year }) => {
          // The planted bug: an unexpected exception for part of the valid range.
          if (year > 2000) throw new Error(`index out of range at /srv/books/src/count.ts:12 for ${year}`);
          return { count: [...BOOKS.values()].filter((b) => b.year >= year).length };
        },
      }) as never,
    );
  }
  return definePack({ name: "books", tools, ...(options.close ? { close: options.close } : {}) });
}
