import type { ReadonlySignal, Signal } from "@preact/signals";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { WidgetStore } from "../state/store.ts";
import type { Translator } from "../translate.ts";

/** View state that isn't part of the conversation: whether the panel shows and how it looks. */
export interface WidgetUi {
  open: Signal<boolean>;
  /** True at ≤ 640 px, where the panel is a full-screen modal sheet. */
  sheet: ReadonlySignal<boolean>;
  title: ReadonlySignal<string>;
  avatarUrl: ReadonlySignal<string | null>;
  close: () => void;
}

export interface WidgetContextValue {
  store: WidgetStore;
  ui: WidgetUi;
  i18n: Translator;
  /** Adds CSS to the widget's shadow root (a lazily loaded chunk's styles). */
  adoptStyles?: (cssText: string) => void;
}

export const WidgetContext = createContext<WidgetContextValue | null>(null);

export function useWidget(): WidgetContextValue {
  const value = useContext(WidgetContext);
  // Only a component rendered outside the provider (a programming error) gets here; kept short for the budget.
  if (!value) throw new Error("no WidgetContext");
  return value;
}
