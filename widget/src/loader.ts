// The script-tag entry, built to dist/widget.js. It must stay under 2 KB gzip, so it is plain DOM:
// a launcher in its own shadow root, the theme, a command queue, and a dynamic import of the
// panel (Preact, styles, conversation) once the visitor reaches for the launcher.
import type { MountContext, PanelHandle, WidgetOptions, WidgetTheme } from "./mount.ts";
import type { WidgetEvent } from "./state/types.ts";

type Listener = (detail: unknown) => void;

export interface WidgetHandle {
  element: HTMLElement;
  open(request?: { message?: string }): void;
  close(): void;
  reset(): void;
  /** Subscribes to a widget event; returns the unsubscribe function. */
  on(event: WidgetEvent, listener: Listener): () => void;
  unmount(): void;
}

type Command = [string, ...unknown[]];
type Method = "open" | "close" | "reset";

export interface LoreWidgetGlobal {
  mount(options: WidgetOptions): WidgetHandle;
  open(request?: { message?: string }): void;
  close(): void;
  reset(): void;
  on(event: WidgetEvent, listener: Listener): () => void;
  q: { push(command: Command): void };
}

// Launcher styles. `all: initial` on the host keeps inherited page styles out of the shadow tree.
// Its hover is in the panel's stylesheet (styles.css), which the first hover loads.
const launcherCss =
  ":host{all:initial!important}" +
  "[data-lore=launcher]{all:initial;position:fixed;bottom:calc(20px + env(safe-area-inset-bottom));right:20px;z-index:var(--lore-z,2147483000);height:56px;padding:0 14px;border-radius:28px;display:grid;grid-auto-flow:column;gap:8px;place-items:center;font:600 15px sans-serif;cursor:pointer;background:var(--lore-primary,#2563eb);color:var(--lore-on-primary,#fff);box-shadow:0 4px 16px #0003}" +
  ":host([data-position=bottom-left]) [data-lore=launcher]{right:auto;left:20px}" +
  "[data-lore=launcher]:focus-visible{outline:3px solid var(--lore-primary,#2563eb);outline-offset:3px}" +
  "svg{width:28px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round}" +
  "[hidden]{display:none}";

const doc = document;
const script = doc.currentScript as HTMLScriptElement | null;
const nonce = script?.nonce;
// The build resolves the panel chunk against this URL: a cross-origin classic script has no base
// URL of its own for import(), so a relative specifier would fail (see vite.config.ts).
const loreScriptUrl = script?.src || location.href;
const listen = (target: EventTarget, event: WidgetEvent, fn: Listener) => {
  const wrapped = (e: Event) => fn((e as CustomEvent).detail);
  target.addEventListener(`lore:${event}`, wrapped);
  return () => target.removeEventListener(`lore:${event}`, wrapped);
};

/** Black or white, whichever reads better on the primary colour (#rgb, #rgba, #rrggbb, #rrggbbaa). */
const textOn = (color: string) => {
  const n = +`0x${(color.length < 7 ? color.replace(/\w/g, "$&$&") : color).slice(1, 7)}`;
  return 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255) > 165 ? "#111" : "#fff";
};
const setAttr = (el: Element, name: string, value: string) => el.setAttribute(name, value);

function mount(options: WidgetOptions): WidgetHandle {
  // The server's root: where widget.js was served from, a proxy's path prefix (/support/) included.
  const server = (options.server || new URL(".", loreScriptUrl).href).replace(/\/+$/, "");
  const host = doc.createElement("lore-widget");
  host.dataset.widgetId = options.widgetId;
  const shadow = host.attachShadow({ mode: "open" });
  // Constructable stylesheets are not subject to style-src; the <style nonce> is for old browsers.
  const adoptStyles = (css: string) => {
    if (shadow.adoptedStyleSheets) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
    } else {
      const style = doc.createElement("style");
      style.nonce = nonce || "";
      style.textContent = css;
      shadow.prepend(style);
    }
  };
  adoptStyles(launcherCss);

  // What the launcher needs; the panel applies the rest (radius, colour scheme) itself.
  const applyTheme = (agent?: WidgetTheme) => {
    const theme = { ...agent, ...options.theme };
    const set = (name: string, value: string) => host.style.setProperty(`--lore-${name}`, value);
    const color = theme.primaryColor;
    if (color && /^#[\da-f]{3,8}$/i.test(color)) {
      set("primary", color);
      set("on-primary", textOn(color));
    }
    const z = Number(theme.zIndex);
    if (z >= 0) set("z", `${z}`);
    host.dataset.position = theme.position || "";
    // A visible label is also the button's name (what voice control users say); the panel keeps it so.
    // A greeting is drawn by the panel: fetch it now rather than on the first hover.
    if (theme.greeting) setTimeout(() => load());
    label.data = theme.launcherLabel || "";
    if (label.data) setAttr(launcher, "aria-label", label.data);
  };

  const launcher = doc.createElement("button");
  // No type="button": in a shadow root no form owns it.
  launcher.dataset.lore = "launcher";
  setAttr(launcher, "aria-expanded", "false");
  setAttr(launcher, "aria-label", "Open chat");
  // The chat icon; the panel swaps the path for a cross while it is open (components/launcher.tsx).
  // No aria-hidden needed: a button's children are presentational, its aria-label names it.
  const ns = "http://www.w3.org/2000/svg";
  const svg = doc.createElementNS(ns, "svg");
  const path = doc.createElementNS(ns, "path");
  setAttr(svg, "viewBox", "0 0 24 24");
  setAttr(path, "d", "M4 5h16v11H9l-5 4z");
  svg.append(path);
  // The owner's launcher label, beside the icon (the button widens into a pill).
  const label = doc.createTextNode("");
  launcher.append(svg, label);
  shadow.append(launcher);

  // The last config's theme, per widget: later page views show the launcher in the agent's colour
  // at once. Storage may be unavailable (sandboxed frames, blocked cookies): then nothing is kept.
  const themeKey = `lore:theme:${options.widgetId}`;
  const storage = (fn: (s: Record<string, string>) => unknown) => {
    try {
      return fn(localStorage);
    } catch {}
  };
  const cached = storage((s) => JSON.parse(s[themeKey] as string)) as WidgetTheme | undefined;
  applyTheme(cached);
  // Known to work here (a cached theme): the launcher shows at once; else once the config answers.
  launcher.hidden = !cached;

  // Fetched now, so the launcher wears the agent's colours and side before anyone touches it.
  const prefetchedConfig = fetch(
    `${server}${options.apiPrefix || "/api"}/widget/${encodeURIComponent(options.widgetId)}/config/`,
  ).then(async (r) => {
    const body = await r.json().catch(() => {});
    // A refused origin or an unknown widget: no launcher for visitors, a hint for the site owner.
    launcher.hidden = r.status === 403 || r.status === 404;
    // A reply that is not Lore's JSON (a proxy's or a site's 404 page): what was asked, and the usual cause.
    if (launcher.hidden)
      console.warn(
        "Lore:",
        body || `could not load the widget config from ${r.url}: HTTP ${r.status} — check data-api-prefix`,
      );
    if (r.ok) applyTheme(body?.theme);
    // Kept while it works; a failure (a refusal too) forgets it, so no stale launcher flashes up.
    storage((s) => (s[themeKey] = r.ok ? JSON.stringify(body?.theme) : ""));
    return { response: r, body };
  });
  // Unreachable: the launcher still shows; the panel reports it once loaded (as 429 and 5xx above).
  prefetchedConfig.catch(() => (launcher.hidden = false));

  let panel: Promise<PanelHandle | undefined> | undefined;
  const load = () => {
    const context: MountContext = { host, shadow, launcher, adoptStyles, applyTheme, prefetchedConfig };
    panel ||= import("./panel.ts").then(
      // Mounting and what the caller does next (open) run as two tasks, so that neither holds the
      // host page's main thread for long (the bench measured one 52-121 ms task on a cold start).
      (m) => {
        const handle = m.mountWidget({ ...options, server }, context);
        return new Promise<PanelHandle>((resolve) => setTimeout(resolve, 0, handle));
      },
      (error): undefined => {
        panel = undefined;
        host.dispatchEvent(
          new CustomEvent("lore:error", {
            detail: { code: "load_failed", message: String(error) },
            bubbles: true,
          }),
        );
      },
    );
    return panel;
  };
  const call = (fn: (p: PanelHandle) => void) => load().then((p) => p && fn(p));
  // Handler properties rather than listeners: the launcher is the loader's own, and they are shorter.
  launcher.onpointerenter = launcher.onfocus = load;
  launcher.onclick = () => call((p) => p.toggle());

  // Beside <body>, not in it: a transform, filter or contain on body would make it the containing
  // block of the launcher's position:fixed and carry the launcher off screen with the page.
  (options.target || doc.documentElement).append(host);

  return {
    element: host,
    open: (request) => call((p) => p.open(request)),
    close: () => panel && call((p) => p.close()),
    reset: () => call((p) => p.reset()),
    on: (event, fn) => listen(host, event, fn),
    unmount() {
      panel?.then((p) => p?.unmount());
      host.remove();
    },
  };
}

// Before this script runs, a page may have set `LoreWidget = { q: [[method, ...args], ...] }`.
const win = window as unknown as { LoreWidget?: LoreWidgetGlobal | { q?: Command[]; mount?: undefined } };
if (!win.LoreWidget?.mount) {
  const queued = (win.LoreWidget?.q as Command[] | undefined) || [];
  const waiting: [Method, { message?: string }?][] = [];
  let first: WidgetHandle | undefined;
  // Page-level calls go to the first widget; calls made before it exists wait for it.
  const later =
    (name: Method) =>
    (request?: { message?: string }): void => {
      if (first) first[name](request);
      else waiting.push([name, request]);
    };
  const api: LoreWidgetGlobal = {
    mount(options) {
      const handle = mount(options);
      if (!first) {
        first = handle;
        for (const [name, request] of waiting.splice(0)) handle[name](request);
      }
      return handle;
    },
    open: later("open"),
    close: later("close"),
    reset: later("reset"),
    on: (event, fn) => listen(doc, event, fn),
    q: {
      push: ([name, ...args]) =>
        (api as unknown as Record<string, (...a: unknown[]) => void>)[name]?.(...args),
    },
  };
  win.LoreWidget = api;
  const data = script?.dataset;
  if (data?.widgetId) {
    // The options and the theme, each read by name from the data attributes (a page's data-target is no element).
    api.mount({ ...(data as unknown as WidgetOptions), theme: data as WidgetTheme, target: undefined });
  }
  for (const command of queued) api.q.push(command);
}
