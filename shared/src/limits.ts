// Limits the widget needs too: no zod here, so the widget bundles these without the schemas.

/** The longest question a query accepts, in UTF-16 code units (a textarea's maxLength counts the same). */
export const MAX_MESSAGE_LENGTH = 10_000;
