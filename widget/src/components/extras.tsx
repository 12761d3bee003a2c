// What a visitor meets only sometimes, in a chunk of its own (assets/extras-<hash>.js): the owner's
// greeting, the contact form, the thumbs-down reasons, a source's snippet, an uncertain answer's
// articles, a long answer's fold and the way out under an answer. An English page loads the panel without them.
export { default as css } from "../extras.css?inline";
export { ContactForm } from "./contact-form.tsx";
export { FeedbackReasons } from "./feedback-reasons.tsx";
export { FoldedAnswer } from "./folded-answer.tsx";
export { Greeting } from "./greeting.tsx";
export { Snippet } from "./snippet.tsx";
export { UncertainSources } from "./uncertain-sources.tsx";
export { WayOut } from "./way-out.tsx";
