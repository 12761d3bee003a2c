// Renders components inside a real widget context (real store over a fetch double) for tests.
import { computed, signal } from "@preact/signals";
import { cleanup, render } from "@testing-library/preact";
import type { ComponentChildren } from "preact";
import { afterEach } from "vitest";
import { createTranslator } from "../i18n.ts";
import { createStore, type StoreOptions } from "../state/store.ts";
import { createFetchDouble, jsonResponse, memoryStorage, widgetConfig } from "../test-support.ts";
import { WidgetContext, type WidgetUi } from "./context.ts";

// Vitest runs without globals, so Testing Library can't register its own cleanup.
afterEach(() => cleanup());

export function renderInWidget(
  children: ComponentChildren,
  options: {
    routes?: Parameters<typeof createFetchDouble>[0];
    lang?: string;
    store?: Partial<StoreOptions>;
  } = {},
) {
  const double = createFetchDouble({
    "GET /config/": () => jsonResponse(200, widgetConfig()),
    ...options.routes,
  });
  const store = createStore({
    server: "https://lore.example.com",
    widgetId: "w1",
    fetch: double.fetch,
    storage: memoryStorage(),
    ...options.store,
  });
  const open = signal(true);
  const ui: WidgetUi = {
    open,
    sheet: signal(false),
    title: computed(() => store.config.value?.theme.title ?? ""),
    avatarUrl: computed(() => null),
    close: () => {
      open.value = false;
    },
  };
  const i18n = createTranslator(options.lang ?? "en");
  const result = render(
    <WidgetContext.Provider value={{ store, ui, i18n }}>{children}</WidgetContext.Provider>,
  );
  return { ...result, store, ui, requests: double.requests };
}
