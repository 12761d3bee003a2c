import { computed, signal } from "@preact/signals";
import { h, render } from "preact";
import type { FetchFn, PrefetchedConfig } from "./api/client.ts";
import { App } from "./components/app.tsx";
import { WidgetContext, type WidgetUi } from "./components/context.ts";
import { defaultStorage } from "./state/persistence.ts";
import { lastTitle, rememberTitle } from "./state/remembered.ts";
import { createStore, type WidgetStore } from "./state/store.ts";
import type { WidgetEvent } from "./state/types.ts";
import css from "./styles.css?inline";
import { en, resolveLanguage, type Table, translatorFor } from "./translate.ts";

/** Theme overrides a page may pass; they win over the agent's theme from the server. */
export interface WidgetTheme {
  primaryColor?: string;
  position?: "bottom-right" | "bottom-left";
  title?: string;
  avatarUrl?: string | null;
  colorScheme?: "light" | "dark" | "auto";
  radius?: number | string;
  zIndex?: number | string;
  /** Text beside the launcher's icon. */
  launcherLabel?: string;
  /** A line shown beside the launcher once per visit until opened or dismissed. */
  greeting?: string;
}

export interface WidgetOptions {
  widgetId: string;
  /** Origin of the Lore server; defaults to the origin the loader script came from. */
  server?: string;
  /** The server's API prefix (LORE_API_PREFIX), "/api" unless changed. */
  apiPrefix?: string;
  theme?: WidgetTheme;
  /** Language of the widget's own strings ("en", "ar", "he"); defaults to the page's, then the browser's. */
  locale?: string;
  /** Element to append the widget to; the document's root element (`<html>`, after `<body>`) by default. */
  target?: HTMLElement;
}

/** What the loader hands the panel: the elements it already rendered and its helpers. */
export interface MountContext {
  host: HTMLElement;
  shadow: ShadowRoot;
  launcher: HTMLButtonElement;
  /** Adds CSS to the shadow root without inline style elements (constructable stylesheets). */
  adoptStyles: (cssText: string) => void;
  /** Applies the launcher's part of the agent's theme (merged under the page's options) to the host. */
  applyTheme?: (theme: WidgetTheme) => void;
  prefetchedConfig?: Promise<PrefetchedConfig>;
  fetch?: FetchFn;
  storage?: Storage | null;
}

export interface PanelHandle {
  open(options?: { message?: string }): void;
  close(): void;
  toggle(): void;
  reset(): void;
  unmount(): void;
  store: WidgetStore;
}

/** Renders the conversation panel into the loader's shadow root and returns its controls. */
export function mountWidget(options: WidgetOptions, ctx: MountContext): PanelHandle {
  const { host, shadow, launcher } = ctx;
  ctx.adoptStyles(css);

  const emit = (name: WidgetEvent, detail: Record<string, unknown>) =>
    host.dispatchEvent(new CustomEvent(`lore:${name}`, { detail, bubbles: true }));
  const store = createStore({
    server: (options.server ?? location.origin).replace(/\/+$/, ""),
    widgetId: options.widgetId,
    fetch: ctx.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    emit,
    ...(options.apiPrefix ? { apiPrefix: options.apiPrefix } : {}),
    ...(ctx.prefetchedConfig ? { prefetchedConfig: ctx.prefetchedConfig } : {}),
    ...(ctx.storage !== undefined ? { storage: ctx.storage } : {}),
  });
  const lang = resolveLanguage([
    options.locale,
    document.documentElement.lang,
    globalThis.navigator?.language,
  ]);
  // English is in this chunk; another language's strings arrive with i18n.ts, and what is on
  // screen re-renders in them (components read the signal through i18n.t).
  const strings = signal<Table>(en);
  const i18n = translatorFor(lang, () => strings.value);
  if (lang !== "en") {
    import("./i18n.ts").then(
      (m) => (strings.value = m.tables[lang] ?? en),
      () => {}, // Unreachable chunk: the widget stays in English.
    );
  }

  const storage = ctx.storage === undefined ? defaultStorage() : ctx.storage;
  const remembered = lastTitle(storage, options.widgetId);

  const media = globalThis.matchMedia?.("(max-width: 640px)");
  const sheet = signal(media?.matches ?? false);
  const onMedia = () => {
    sheet.value = media?.matches ?? false;
  };
  media?.addEventListener?.("change", onMedia);

  // The keyboard shrinks the visual viewport but not 100dvh on some phones; size the sheet to it.
  const viewport = globalThis.visualViewport;
  const onViewport = () => {
    if (!viewport) return;
    host.style.setProperty("--lore-vvh", `${viewport.height}px`);
    host.style.setProperty("--lore-vvt", `${viewport.offsetTop}px`);
  };
  viewport?.addEventListener("resize", onViewport);
  viewport?.addEventListener("scroll", onViewport);
  onViewport();

  const open = signal(false);
  const close = () => {
    if (!open.value) return;
    const hadFocus = shadow.activeElement !== null;
    open.value = false;
    emit("close", {});
    if (hadFocus) launcher.focus();
  };
  const ui: WidgetUi = {
    open,
    sheet,
    // Never blank: without a config (server unreachable) the name it gave last time, else "Assistant".
    title: computed(
      () =>
        options.theme?.title ||
        store.config.value?.theme.title ||
        store.config.value?.name ||
        remembered ||
        i18n.t("assistant"),
    ),
    avatarUrl: computed(() => options.theme?.avatarUrl ?? store.config.value?.theme.avatarUrl ?? null),
    close,
  };
  const applyPanelTheme = (agent: Partial<WidgetTheme>) => {
    const theme = { ...agent, ...options.theme };
    const radius = Number(theme.radius);
    if (theme.radius !== undefined && radius >= 0 && radius <= 32)
      host.style.setProperty("--lore-radius", `${radius}px`);
    const scheme = theme.colorScheme;
    host.dataset.scheme = scheme === "dark" || scheme === "auto" ? scheme : "light";
  };
  applyPanelTheme({});
  const unsubscribeTheme = store.config.subscribe((config) => {
    if (!config) return;
    rememberTitle(storage, options.widgetId, config.theme.title || config.name);
    ctx.applyTheme?.(config.theme);
    applyPanelTheme(config.theme);
  });

  const container = document.createElement("div");
  container.setAttribute("data-lore", "root");
  shadow.append(container);
  render(
    h(
      WidgetContext.Provider,
      { value: { store, ui, i18n, adoptStyles: ctx.adoptStyles } },
      h(App, { launcher, widgetId: options.widgetId }),
    ),
    container,
  );
  void store.loadConfig();

  const handle: PanelHandle = {
    open(request) {
      if (!open.value) {
        open.value = true;
        emit("open", {});
      }
      if (request?.message) void store.send(request.message);
    },
    close,
    toggle() {
      if (open.value) close();
      else handle.open();
    },
    reset: () => store.reset(),
    unmount() {
      unsubscribeTheme();
      store.dispose();
      media?.removeEventListener?.("change", onMedia);
      viewport?.removeEventListener("resize", onViewport);
      viewport?.removeEventListener("scroll", onViewport);
      render(null, container);
      container.remove();
    },
    store,
  };
  return handle;
}
