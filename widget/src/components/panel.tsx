import { useSignalEffect } from "@preact/signals";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { safeHttpUrl } from "../markdown.ts";
import { Composer } from "./composer.tsx";
import { ContactAction } from "./contact-action.tsx";
import { useWidget } from "./context.ts";
import { Icon } from "./icons.tsx";
import { LazyContactForm } from "./lazy.tsx";
import { MessageList } from "./message-list.tsx";
import { NoticeBanner, Welcome } from "./states.tsx";

const focusable =
  'a[href],button:not([disabled]),textarea:not([disabled]),input:not([disabled]),[tabindex]:not([tabindex="-1"])';

/** The chat dialog: header, conversation, notices, composer and the polite live region. */
export function Panel({ id }: { id: string }) {
  const { store, ui, i18n } = useWidget();
  const panel = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const stick = useRef(true);
  const open = ui.open.value;
  const sheet = ui.sheet.value;
  const avatar = safeHttpUrl(ui.avatarUrl.value);
  const titleId = `${id}-title`;

  // Opening moves focus into the panel, to the question box.
  useSignalEffect(() => {
    if (ui.open.value) queueMicrotask(() => input.current?.focus());
  });

  // Follow the conversation while the visitor is at its end; asking or stopping brings the end back
  // (Try again is there). New text while they read further up shows "New message ↓" instead.
  const [unseen, setUnseen] = useState(false);
  const last = store.messages.value.at(-1);
  const change = last && `${last.id}${last.status}${last.content.length}.${last.sources.length}`;
  const toEnd = () => {
    const el = body.current;
    if (el) el.scrollTop = el.scrollHeight;
  };
  useLayoutEffect(() => {
    if (!last) return setUnseen(false);
    if (last.status === "pending" || last.status === "stopped") stick.current = true;
    stick.current ? toEnd() : setUnseen(true);
  }, [change, open]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      ui.close();
      return;
    }
    // Only the full-screen sheet is modal; the desktop panel lets focus move on to the page.
    if (event.key !== "Tab" || !ui.sheet.value || !panel.current) return;
    const items = [...panel.current.querySelectorAll<HTMLElement>(focusable)].filter(
      (el) => !el.closest("[hidden]"),
    );
    const first = items[0];
    const last = items.at(-1);
    const active = (panel.current.getRootNode() as ShadowRoot).activeElement;
    if (event.shiftKey && (active === first || !panel.current.contains(active))) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first?.focus();
    }
  };

  return (
    <div
      ref={panel}
      id={id}
      class="panel"
      role="dialog"
      aria-labelledby={titleId}
      aria-modal={sheet ? "true" : undefined}
      hidden={!open}
      dir={i18n.dir}
      lang={i18n.lang}
      data-lore="panel"
      onKeyDown={onKeyDown}
    >
      <div class="header">
        {avatar && <img class="avatar" src={avatar} alt="" />}
        <h2 id={titleId} class="title">
          {ui.title.value}
        </h2>
        <ContactAction icon />
        <button
          type="button"
          class="icon-btn"
          data-lore="new-conversation"
          aria-label={i18n.t("newConversation")}
          title={i18n.t("newConversation")}
          onClick={() => {
            store.reset();
            input.current?.focus();
          }}
        >
          <Icon name="plus" />
        </button>
        <button
          type="button"
          class="icon-btn"
          data-lore="close"
          aria-label={i18n.t("close")}
          title={i18n.t("close")}
          onClick={ui.close}
        >
          <Icon name="close" />
        </button>
      </div>
      <div
        ref={body}
        class="body"
        onScroll={(event) => {
          const el = event.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
          if (stick.current) setUnseen(false);
        }}
      >
        <Welcome />
        <MessageList />
        {store.handoff.contact.value.step !== "closed" && <LazyContactForm id={`${id}-contact`} />}
        {unseen && (
          <button
            type="button"
            class="jump"
            data-lore="jump"
            onClick={() => {
              toEnd();
              input.current?.focus();
            }}
          >
            {i18n.t("newMessage")} ↓
          </button>
        )}
      </div>
      <NoticeBanner />
      <Composer inputRef={input} inputId={`${id}-input`} />
      <div class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-lore="live">
        {store.announcement.value}
      </div>
    </div>
  );
}
