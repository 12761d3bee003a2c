/** The tools whose calls are charged as questions (the caller's and the agent's limits, like `/query/`). */
const QUESTION_TOOLS: ReadonlySet<unknown> = new Set(["search", "ask"]);

/** Whether a call of tool `name` is charged as a question. */
export const isQuestion = (name: unknown): boolean => QUESTION_TOOLS.has(name);
