// DOM helpers for the console. Text from the API only ever reaches the page as textContent.

/**
 * Creates an element. `props`: `class`, `text`, `on*` listeners, `dataset`, booleans (hidden,
 * disabled, checked…) and other attributes. Children: nodes or strings (as text), null skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [props]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = String(value);
    else if (key === "text") el.textContent = String(value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else if (key === "value" && "value" in el) {
      /** @type {HTMLInputElement} */ (el).value = String(value);
    } else if (key === "checked" && "checked" in el) {
      /** @type {HTMLInputElement} */ (el).checked = Boolean(value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} parent
 * @param {Array<Node | string | null | undefined | false>} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces an element's children. */
export function replace(
  /** @type {Element} */ parent,
  /** @type {Array<Node | string | null | undefined | false>} */ ...children
) {
  parent.replaceChildren();
  append(parent, children);
}

let uid = 0;
/** A page-unique id for label/aria wiring. */
export function nextId(/** @type {string} */ prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A labelled form field: label, control, optional hint, and a slot for its error message.
 * @param {string} label
 * @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} control
 * @param {string} [hint]
 */
export function field(label, control, hint) {
  control.id ||= nextId("f");
  const hintEl = hint ? h("p", { class: "hint", id: nextId("hint"), text: hint }) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: control.id, text: label }), control, hintEl);
}

/**
 * A select with options given as [value, label] pairs.
 * @param {string} name
 * @param {Array<[string, string]>} options
 * @param {string} value
 */
export function select(name, options, value) {
  const el = h("select", { name });
  for (const [v, label] of options) el.append(h("option", { value: v, text: label }));
  el.value = value;
  return el;
}

/** Removes the error messages and invalid marks a form showed before. */
export function clearErrors(/** @type {Element} */ form) {
  for (const el of form.querySelectorAll(".field-error, .form-error")) el.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    const described = (el.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .filter((id) => id && !id.startsWith("err-"))
      .join(" ");
    if (described) el.setAttribute("aria-describedby", described);
    else el.removeAttribute("aria-describedby");
  }
}

/**
 * Shows an error beside the form that caused it: `details.fields` next to the matching inputs
 * (by `name`, falling back to the nearest parent path: `allowedOrigins.1` → `allowedOrigins`),
 * the rest as one message at the top of the form.
 * @param {Element} form
 * @param {unknown} error
 */
export function showError(form, error) {
  clearErrors(form);
  const err = /** @type {{ message?: string, code?: string, fields?: Record<string, string[]> }} */ (error);
  const message = err && typeof err.message === "string" ? err.message : String(error);
  /** @type {string[]} */
  const unplaced = [];
  let firstInvalid = /** @type {HTMLElement | null} */ (null);
  for (const [key, messages] of Object.entries(err?.fields ?? {})) {
    const control = findControl(form, key);
    if (!control) {
      unplaced.push(`${key}: ${messages.join(", ")}`);
      continue;
    }
    const id = nextId("err");
    const note = h("p", { class: "field-error", id, text: messages.join(" ") });
    control.setAttribute("aria-invalid", "true");
    const described = control.getAttribute("aria-describedby");
    control.setAttribute("aria-describedby", described ? `${described} ${id}` : id);
    (control.closest(".field") ?? control).append(note);
    firstInvalid ??= control;
  }
  const summary = h(
    "div",
    { class: "form-error", role: "alert", dataset: { code: err?.code ?? "error" } },
    h("p", { text: message }),
  );
  if (unplaced.length > 0) {
    const list = h("ul");
    for (const line of unplaced) list.append(h("li", { text: line }));
    summary.append(list);
  }
  form.prepend(summary);
  firstInvalid?.focus();
}

/**
 * @param {Element} form
 * @param {string} key
 * @returns {HTMLElement | null}
 */
function findControl(form, key) {
  const parts = key.split(".");
  while (parts.length > 0) {
    const name = parts.join(".");
    for (const el of form.querySelectorAll("[name]")) {
      if (el.getAttribute("name") === name) return /** @type {HTMLElement} */ (el);
    }
    parts.pop();
  }
  return null;
}

/** Copies text and says so in `status` (a role=status element). */
export async function copyText(/** @type {string} */ text, /** @type {HTMLElement} */ status) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "Copied to the clipboard.";
  } catch {
    status.textContent = "Copy failed — select the text and copy it by hand.";
  }
}

/** "3 minutes ago"-style time, with the exact time in a title. */
export function timeAgo(/** @type {string | null | undefined} */ iso) {
  if (!iso) return h("span", { text: "—" });
  const date = new Date(iso);
  const seconds = Math.round((Date.now() - date.getTime()) / 1000);
  const units = /** @type {const} */ ([
    ["day", 86400],
    ["hour", 3600],
    ["minute", 60],
  ]);
  let text = "just now";
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) {
      text = new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(-Math.round(seconds / size), unit);
      break;
    }
  }
  return h("time", { datetime: iso, title: date.toLocaleString(), text });
}
