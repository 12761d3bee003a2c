import { en } from "../translate.ts";

/** English for what only the extras chunk shows (a page in English loads the panel without it). */
export const extrasEn = {
  showSection: "Show the whole section",
  uncertain: "Not sure — these articles may help:",
  email: "Your e-mail",
  message: "Message",
  contactSent: "Thanks! We'll reply by e-mail.",
  badEmail: "Enter a valid e-mail address.",
  badMessage: "Write a message.",
  whatWrong: "What was wrong?",
  reasonWrong: "Wrong answer",
  reasonUnanswered: "Didn't answer my question",
  reasonOutdated: "Out of date",
  reasonOther: "Other",
} as const;

Object.assign(en, extrasEn);
