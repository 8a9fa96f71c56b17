import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type { AnyResourceTemplate, AuthInfo, RequestContext, ResourceBody } from "@toolshed/schema";
import { insufficientScopeError } from "../access.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import type { MiddlewareFrame } from "../middleware.js";
import { type FoundResource, HIDDEN } from "./access-control.js";
import { capped, guard, issuesText, through } from "./guard.js";
import type { RuntimeParts } from "./parts.js";
import { describeResource } from "./registry.js";

/** resources/list: the fixed resources and what each template lists, of those the caller (`ctx.authInfo`) may use. */
export async function listResources(parts: RuntimeParts, ctx: RequestContext): Promise<Resource[]> {
  const out: Resource[] = [];
  const auth = ctx.authInfo;
  for (const r of parts.registry.resources.values()) if (parts.access.visible(auth, r)) out.push(describeResource(r));
  for (const t of parts.registry.templates.values()) {
    if (parts.access.visible(auth, t)) out.push(...(await listTemplateResources(parts, t, ctx)));
  }
  return out;
}

/** resources/templates/list, of the templates this caller may use. */
export function listResourceTemplates(parts: RuntimeParts, authInfo?: AuthInfo): ResourceTemplate[] {
  const { registry, access } = parts;
  if (!access.filtersByCaller) return registry.templateListings;
  const templates = [...registry.templates.values()];
  return registry.templateListings.filter((_, i) => access.visible(authInfo, templates[i] as AnyResourceTemplate));
}

/** The resources one template lists. */
export async function listTemplateResources(
  parts: RuntimeParts,
  template: AnyResourceTemplate,
  ctx: RequestContext,
): Promise<Resource[]> {
  if (!template.list) return [];
  const list = template.list;
  const listed = await guard(parts.logger, `list resources of ${template.name}`, () => list(ctx));
  return listed.map((item) => ({
    ...(template.mimeType === undefined ? {} : { mimeType: template.mimeType }),
    ...item,
  }));
}

/**
 * resources/read for the caller in `ctx.authInfo`: a resource hidden from it is not found; one
 * whose scopes its token lacks is -32003.
 */
export async function readResource(
  parts: RuntimeParts,
  uri: string,
  ctx: RequestContext,
  frame?: MiddlewareFrame,
): Promise<ReadResourceResult> {
  return capped(
    parts,
    `resources/read ${uri}`,
    await read(parts, uri, ctx, frame),
    "read a narrower resource (a template with a smaller page or range) or raise the server's result limit",
  );
}

async function read(
  parts: RuntimeParts,
  uri: string,
  ctx: RequestContext,
  frame?: MiddlewareFrame,
): Promise<ReadResourceResult> {
  const { registry, access } = parts;
  const found = access.findResource(uri, ctx.authInfo);
  if (found === undefined || found === HIDDEN) {
    const forms: string[] = [];
    for (const [key, r] of registry.resources) if (access.visible(ctx.authInfo, r)) forms.push(key);
    for (const t of registry.templates.values()) if (access.visible(ctx.authInfo, t)) forms.push(t.uriTemplate);
    throw new JsonRpcError(
      JsonRpcCode.ResourceNotFound,
      `Resource not found: ${uri}. Known resources: ${forms.length > 0 ? forms.join(", ") : "none"}`,
      { uri },
    );
  }
  if (!found.access.ok) throw insufficientScopeError(`resources/read ${uri}`, found.access, ctx.authInfo);
  const { definition } = found;
  if (frame !== undefined) return readThrough(parts, frame, uri, found, ctx);
  if (definition.kind === "resource") {
    const body = await guard(parts.logger, `read ${uri}`, () => definition.read(ctx));
    return { contents: toContents(uri, body, definition.mimeType) };
  }
  const parsed = definition.parseParams(found.vars ?? {});
  if (!parsed.success) {
    throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid resource URI ${uri}:\n${issuesText(parsed.issues)}`);
  }
  const body = await guard(parts.logger, `read ${uri}`, () => definition.read(parsed.data, { ...ctx, uri }));
  return { contents: toContents(uri, body, definition.mimeType) };
}

/** resources/read of a found, allowed definition through the resource-level middleware. */
async function readThrough(
  parts: RuntimeParts,
  frame: MiddlewareFrame,
  uri: string,
  found: FoundResource,
  ctx: RequestContext,
): Promise<ReadResourceResult> {
  const what = `read ${uri}`;
  const { definition } = found;
  if (definition.kind === "resource") {
    const readFixed = async () => ({
      contents: toContents(uri, await guard(parts.logger, what, () => definition.read(ctx)), definition.mimeType),
    });
    return through(parts, frame, "resource", definition, uri, undefined, what, readFixed);
  }
  const parsed = definition.parseParams(found.vars ?? {});
  if (!parsed.success) {
    throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid resource URI ${uri}:\n${issuesText(parsed.issues)}`);
  }
  const readTemplate = async () => ({
    contents: toContents(
      uri,
      await guard(parts.logger, what, () => definition.read(parsed.data, { ...ctx, uri })),
      definition.mimeType,
    ),
  });
  return through(parts, frame, "resource", definition, uri, parsed.data, what, readTemplate);
}

function toContents(uri: string, body: ResourceBody, mimeType: string | undefined): ReadResourceResult["contents"] {
  const items = typeof body === "string" ? [{ text: body }] : Array.isArray(body) ? body : [body];
  return items.map((item) => {
    const mime = item.mimeType ?? mimeType;
    const base = { uri: item.uri ?? uri, ...(mime === undefined ? {} : { mimeType: mime }) };
    return "blob" in item ? { ...base, blob: item.blob } : { ...base, text: item.text };
  });
}
