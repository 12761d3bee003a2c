// One SSE reader for the widget and the console, in the shared package.
export { readAnswerEvents } from "@lore/shared/sse";
