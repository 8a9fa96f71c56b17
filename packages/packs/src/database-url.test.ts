import { describe, expect, it } from "vitest";
import { checkDatabaseUrl, redactDatabaseUrl } from "./database-url.js";

describe("redactDatabaseUrl", () => {
  it("masks the password in the user part and in query parameters, and keeps the rest", () => {
    expect(redactDatabaseUrl("postgres://app:s3cret@db:5432/toolshed")).toBe("postgres://app:***@db:5432/toolshed");
    const redacted = redactDatabaseUrl(
      "postgres://app@db:5432/toolshed?password=s3cret&sslpassword=k3y&sslmode=require&application_name=toolshed",
    );
    expect(redacted).toBe(
      "postgres://app@db:5432/toolshed?password=***&sslpassword=***&sslmode=require&application_name=toolshed",
    );
    expect(redacted).not.toMatch(/s3cret|k3y/);
  });

  it("a URL that does not parse is not echoed at all", () => {
    expect(redactDatabaseUrl("postgres://app:s3cret@[bad")).toBe("(unparseable URL)");
  });

  it("the start-up error for a URL of the wrong kind shows no credential", () => {
    expect(() => checkDatabaseUrl("mysql://app@db/x?password=s3cret")).toThrowError(
      'database URL "mysql://app@db/x?password=***" is not a PostgreSQL URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
  });
});
