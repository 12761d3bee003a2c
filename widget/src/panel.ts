// The lazily loaded half of the widget; the loader imports this chunk (assets/panel-<hash>.js).
export { mountWidget } from "./mount.ts";
