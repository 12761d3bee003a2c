/** Direction overrides and marks: a page address could read backwards in the console. */
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The page a widget question was asked on, as stored and shown to the owner (issue #49): direction
 * overrides removed, credentials and fragment dropped, so `https://site-a.test@evil.test/` is stored
 * as `https://evil.test/`, the host it really names.
 */
export function cleanPageUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw.replace(BIDI, ""));
    url.username = "";
    url.password = "";
    url.hash = "";
    return url.href;
  } catch {
    return undefined;
  }
}
