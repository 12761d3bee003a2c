// The package's types for pages and tools that drive the widget (the demo, the console, tests).
export type { LoreWidgetGlobal, WidgetHandle } from "./loader.ts";
export type { PanelHandle, WidgetOptions, WidgetTheme } from "./mount.ts";
export type { WidgetEvent } from "./state/types.ts";
