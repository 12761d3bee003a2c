import type { Citation } from "@lore/shared";
import type { ComponentChildren } from "preact";
import { type Block, type Inline, parseMarkdown } from "../markdown.ts";

export interface MarkdownProps {
  text: string;
  sources: readonly Citation[];
  /** Label of a [n] marker button, e.g. "Show source 2". */
  citeLabel?: (n: number, source: Citation) => string;
  expanded?: readonly number[];
  onCite?: (n: number) => void;
  /** Prefix of the ids of the source cards, so a marker can name the card it controls. */
  idPrefix?: string;
}

/** Renders Markdown as Preact elements: text is always text, only a fixed set of tags is used. */
export function Markdown(props: MarkdownProps) {
  return <div class="md">{parseMarkdown(props.text).map((block, i) => renderBlock(block, i, props))}</div>;
}

function renderBlock(block: Block, key: number, props: MarkdownProps): ComponentChildren {
  switch (block.t) {
    case "p":
      return <p key={key}>{renderInlines(block.c, props)}</p>;
    case "h":
      // Headings inside an answer stay below the panel's own h2.
      return block.level <= 2 ? (
        <h3 key={key}>{renderInlines(block.c, props)}</h3>
      ) : (
        <h4 key={key}>{renderInlines(block.c, props)}</h4>
      );
    case "pre":
      return (
        <pre key={key} data-lang={block.lang || undefined}>
          <code>{block.v}</code>
        </pre>
      );
    case "ul":
      return (
        <ul key={key}>
          {block.items.map((item, i) => (
            <li key={i}>{renderInlines(item, props)}</li>
          ))}
        </ul>
      );
    case "ol":
      return (
        <ol key={key} start={block.start}>
          {block.items.map((item, i) => (
            <li key={i}>{renderInlines(item, props)}</li>
          ))}
        </ol>
      );
    case "quote":
      return <blockquote key={key}>{block.c.map((b, i) => renderBlock(b, i, props))}</blockquote>;
    case "table": {
      const row = (cells: Inline[][], Cell: "th" | "td", key?: number) => (
        <tr key={key}>
          {cells.map((cell, k) => (
            <Cell key={k} align={block.align[k]}>
              {renderInlines(cell, props)}
            </Cell>
          ))}
        </tr>
      );
      return (
        // The wrapper scrolls sideways, so a wide table doesn't widen the panel.
        <div key={key} class="table">
          <table>
            <thead>{row(block.head, "th")}</thead>
            <tbody>{block.rows.map((cells, r) => row(cells, "td", r))}</tbody>
          </table>
        </div>
      );
    }
    case "hr":
      return <hr key={key} />;
    default:
      return block satisfies never;
  }
}

function renderInlines(nodes: readonly Inline[], props: MarkdownProps): ComponentChildren[] {
  return nodes.map((node, i) => renderInline(node, i, props));
}

function renderInline(node: Inline, key: number, props: MarkdownProps): ComponentChildren {
  switch (node.t) {
    case "text":
      return node.v;
    case "br":
      return <br key={key} />;
    case "code":
      return <code key={key}>{node.v}</code>;
    case "strong":
      return <strong key={key}>{renderInlines(node.c, props)}</strong>;
    case "em":
      return <em key={key}>{renderInlines(node.c, props)}</em>;
    case "link":
      return node.href ? (
        <a key={key} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
          {renderInlines(node.c, props)}
        </a>
      ) : (
        <span key={key}>{renderInlines(node.c, props)}</span>
      );
    case "cite": {
      const source = props.sources.find((s) => s.rank === node.n);
      const { onCite } = props;
      if (!source || !onCite) return <sup key={key}>[{node.n}]</sup>;
      return (
        <button
          key={key}
          type="button"
          class="cite"
          data-lore="cite"
          data-rank={node.n}
          aria-label={props.citeLabel?.(node.n, source) ?? `${node.n}: ${source.title}`}
          aria-expanded={props.expanded?.includes(node.n) ?? false}
          aria-controls={props.idPrefix ? `${props.idPrefix}${node.n}` : undefined}
          onClick={() => onCite(node.n)}
        >
          {node.n}
        </button>
      );
    }
    default:
      return node satisfies never;
  }
}
