import type { Logger } from "@toolshed/schema";

/** A logger that drops every line. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
