/**
 * Internals of @toolshed/http that the Toolshed servers use. Not public API: anything here may
 * change in any release.
 */
export { createAuthenticator } from "./auth.js";
export { answerClientErrors } from "./client-errors.js";
export { checkAuthConfigured, checkHostAndOrigin, resolveOriginPolicy } from "./guards.js";
export { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
export { perLimitRateLimiter } from "./rate-limit.js";
