// The package's types for pages and tools that drive the widget (the demo, the console, tests).
export type { LoreWidgetGlobal, WidgetEvent, WidgetHandle } from "./loader.ts";
export type { PanelHandle, WidgetOptions, WidgetTheme } from "./mount.ts";
