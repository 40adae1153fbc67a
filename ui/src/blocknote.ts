// BlockNote's JSON, as previews carry it (`PreviewBlock.block`): what the renderer reads.

/** A run of text and its styles (`bold`, `italic`, `underline`, `strike`, `code`: true;
 * `textColor`, `backgroundColor`: a colour name). */
export interface StyledText {
  type: "text";
  text: string;
  styles: Record<string, string | boolean>;
}

/** Inline content: text, a link (`{type: "link", href, content}`), or another kind. */
export type InlineJson = StyledText | { type: string; [key: string]: unknown };

export interface TableJson {
  type: "tableContent";
  rows: { cells: ({ type: "tableCell"; content: InlineJson[] } | InlineJson[])[] }[];
}

/** A block: its type, props, inline content (or a table) and nested blocks. */
export interface BlockJson {
  id: string;
  type: string;
  props: Record<string, unknown>;
  content?: InlineJson[] | TableJson;
  children: BlockJson[];
}
