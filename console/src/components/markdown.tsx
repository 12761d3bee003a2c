// Answers and corrections are Markdown: the console renders them with the widget's own renderer.
export { Markdown } from "../../../widget/src/components/markdown.tsx";
