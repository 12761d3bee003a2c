export * from "./agents.ts";
export * from "./answers.ts";
export * from "./auth.ts";
export * from "./common.ts";
export * from "./errors.ts";
export * from "./sources.ts";
export * from "./widget.ts";
