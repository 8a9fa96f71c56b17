export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  INTROSPECTION_CLIENT_ID,
  INTROSPECTION_CLIENT_SECRET,
  type IntrospectionAnswer,
  type IntrospectionCall,
  startAuthorizationServer,
} from "./authorization-server.js";
export {
  connect,
  legacyInitialize,
  MCP_HEADERS,
  MODERN_VERSION,
  modernEnvelope,
  modernPost,
  post,
  sseMessages,
} from "./http.js";
export { silentLogger } from "./logger.js";
export { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";
export { TestMetricReader, useTestTelemetry } from "./telemetry.js";
export { TELEMETRY_SECRET, telemetryPack } from "./telemetry-pack.js";
