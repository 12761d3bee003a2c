// The owner console: a single-page app over the REST API, on the widget's stack (Preact + signals).
import { render } from "preact";
import { App } from "./components/app.tsx";
import "./styles.css";

const root = document.getElementById("app");
if (root) {
  root.replaceChildren();
  render(<App />, root);
}
