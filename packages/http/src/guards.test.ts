import { describe, expect, it } from "vitest";
import { checkHostAndOrigin, isLoopbackHost, resolveOriginPolicy, tokenInQuery } from "./guards.js";

// Without a URL, only the headers count.
const status = (policy: ReturnType<typeof resolveOriginPolicy>, h: Record<string, string>) =>
  checkHostAndOrigin(new Headers(h), policy)?.status ?? 200;

describe("Host and Origin policy", () => {
  it("knows loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "10.0.0.1", "example.com", "::"]) expect(isLoopbackHost(h)).toBe(false);
  });

  it("on loopback allows only the loopback names on the bound port, and their pages as origins", () => {
    const policy = resolveOriginPolicy({ host: "127.0.0.1", port: 3000 });
    expect(policy.allowedHosts).toEqual(["localhost:3000", "127.0.0.1:3000", "[::1]:3000"]);
    expect(status(policy, { host: "localhost:3000" })).toBe(200);
    expect(status(policy, { host: "[::1]:3000" })).toBe(200);
    expect(status(policy, { host: "LOCALHOST:3000" })).toBe(200);
    expect(status(policy, { host: "localhost:3001" })).toBe(403);
    expect(status(policy, { host: "attacker.example:3000" })).toBe(403);
    expect(status(policy, {})).toBe(403);
    expect(status(policy, { host: "127.0.0.1:3000", origin: "http://localhost:3000" })).toBe(200);
    expect(status(policy, { host: "127.0.0.1:3000", origin: "http://localhost:5173" })).toBe(403);
    expect(status(policy, { host: "127.0.0.1:3000", origin: "https://attacker.example" })).toBe(403);
    expect(status(policy, { host: "127.0.0.1:3000", origin: "null" })).toBe(403);
  });

  it("without a port (a mounted app), loopback names and their pages match on any port", () => {
    const policy = resolveOriginPolicy({ host: "127.0.0.1" });
    expect(status(policy, { host: "localhost:8787" })).toBe(200);
    expect(status(policy, { host: "localhost" })).toBe(200);
    expect(status(policy, { host: "localhost", origin: "http://localhost:5173" })).toBe(200);
    expect(status(policy, { host: "localhost", origin: "http://localhost.attacker.example" })).toBe(403);
    expect(status(policy, { host: "evil.example" })).toBe(403);
  });

  it("elsewhere accepts any Host but no browser Origin unless configured", () => {
    const policy = resolveOriginPolicy({ host: "0.0.0.0", port: 3000 });
    expect(policy.allowedHosts).toBeUndefined();
    expect(status(policy, { host: "mcp.example.com" })).toBe(200);
    expect(status(policy, { host: "mcp.example.com", origin: "https://mcp.example.com" })).toBe(403);
  });

  it("configured lists win; a name without a port matches any port; * turns a check off", () => {
    const policy = resolveOriginPolicy({
      host: "0.0.0.0",
      port: 3000,
      allowedHosts: ["mcp.example.com"],
      allowedOrigins: ["https://app.example.com/"],
    });
    expect(status(policy, { host: "mcp.example.com:443" })).toBe(200);
    expect(status(policy, { host: "other.example.com" })).toBe(403);
    expect(status(policy, { host: "mcp.example.com", origin: "https://app.example.com" })).toBe(200);
    expect(status(policy, { host: "mcp.example.com", origin: "https://mcp.example.com" })).toBe(403);
    const open = resolveOriginPolicy({ host: "127.0.0.1", port: 1, allowedHosts: ["*"], allowedOrigins: ["*"] });
    expect(open).toEqual({});
  });

  it("takes the host from the URL when a Request has no Host header", () => {
    const policy = resolveOriginPolicy({ host: "127.0.0.1", port: 3000 });
    expect(checkHostAndOrigin(new Headers(), policy, "http://localhost:3000/mcp")).toBeUndefined();
    expect(checkHostAndOrigin(new Headers(), policy, "http://evil.example:3000/mcp")?.status).toBe(403);
  });

  it("answers 403 with the SDK transport's JSON-RPC body", async () => {
    const res = checkHostAndOrigin(
      new Headers({ host: "x.example" }),
      resolveOriginPolicy({ host: "localhost", port: 1 }),
    );
    expect(res?.status).toBe(403);
    expect(await res?.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Invalid Host header: x.example" },
      id: null,
    });
  });
});

describe("tokens in the URL", () => {
  it("finds a token parameter whatever its case, and names it as sent", () => {
    expect(tokenInQuery("access_token=x")).toBe("access_token");
    expect(tokenInQuery("a=1&ACCESS_TOKEN=x")).toBe("ACCESS_TOKEN");
    expect(tokenInQuery("Access_Token=x")).toBe("Access_Token");
    expect(tokenInQuery("API_KEY=x")).toBe("API_KEY");
    expect(tokenInQuery("Bearer=x")).toBe("Bearer");
    expect(tokenInQuery("access%5FToken=x")).toBe("access_Token");
  });

  it("leaves other parameters alone", () => {
    expect(tokenInQuery("")).toBeUndefined();
    expect(tokenInQuery("tokens=1&access=2&key=3")).toBeUndefined();
  });
});
