export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  INTROSPECTION_CLIENT_ID,
  INTROSPECTION_CLIENT_SECRET,
  type IntrospectionAnswer,
  type IntrospectionCall,
  startAuthorizationServer,
} from "./authorization-server.js";
export { type HttpProcess, killChildren, type LogLine, startHttpProcess, trackChild } from "./child.js";
export { CRM_COERCION } from "./coercion.js";
export { removeTempDirs, type TempDir, tempDir } from "./fs.js";
export {
  connect,
  legacyInitialize,
  MCP_HEADERS,
  MODERN_VERSION,
  modernEnvelope,
  modernPost,
  openStream,
  post,
  sseMessages,
} from "./http.js";
export { type Jwks, type JwksBehaviour, type JwksServer, type JwtSignOptions, startJwks } from "./jwks.js";
export { captureLogger, type LoggerOptions, silentLogger } from "./logger.js";
export { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";
export { errorMeta, resultText } from "./results.js";
export { forEachSqliteDriver, sqliteDriverProblem } from "./sqlite-drivers.js";
export { TestMetricReader, useTestTelemetry } from "./telemetry.js";
export { TELEMETRY_SECRET, telemetryPack } from "./telemetry-pack.js";
