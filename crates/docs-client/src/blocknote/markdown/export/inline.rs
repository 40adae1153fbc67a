//! Inline content as markdown: text runs with their styles, links, inline math (`$…$`, and
//! where a literal `$` must be `\$`), comment markers; and the escapes markdown needs.

use super::{Writer, comment_close, comment_open};
use crate::blocknote::markdown::math::MathInput;
use crate::blocknote::tree::{Block, Inline, PropValue, TextRun};

impl Writer<'_> {
    pub(super) fn inline(&mut self, b: &Block, inline: &[Inline], in_table: bool) -> String {
        // Where `$` reads as math (inline content holding inline math, read back as a rewrite
        // keeping it; any where the instance has math), a literal one is `\$`; elsewhere, as
        // in documents without math, it stays as it is.
        let dollars = MathInput::rewriting(inline, self.opts.schema).reads_dollars();
        let mut s = String::new();
        // Threads whose marked text is being written, in the order they opened.
        let mut threads: Vec<&str> = vec![];
        let mut i = 0;
        while i < inline.len() {
            if !matches!(inline[i], Inline::Text(_)) {
                self.comment_markers(&mut s, &mut threads, &[]);
            }
            match &inline[i] {
                Inline::Text(r) if r.link.is_some() => {
                    let href = r.link.clone().unwrap_or_default();
                    let mut inner = String::new();
                    while let Some(Inline::Text(r)) = inline.get(i) {
                        if r.link.as_deref() != Some(href.as_str()) {
                            break;
                        }
                        self.comment_markers(&mut inner, &mut threads, &r.comments);
                        inner.push_str(&self.run(b, r, in_table, dollars));
                        i += 1;
                    }
                    // A marker open at the end of the link text closes in it.
                    self.comment_markers(&mut inner, &mut threads, &[]);
                    s.push_str(&format!("[{inner}]({})", url_escape(&href)));
                    continue;
                }
                Inline::Text(r) => {
                    self.comment_markers(&mut s, &mut threads, &r.comments);
                    s.push_str(&self.run(b, r, in_table, dollars));
                }
                Inline::HardBreak => s.push_str(if in_table { "<br>" } else { "\\\n" }),
                Inline::Element { kind, attrs } => {
                    let title = attrs
                        .get("title")
                        .and_then(PropValue::as_str)
                        .unwrap_or("")
                        .to_string();
                    if kind == crate::blocknote::mentions::USER_MENTION_INLINE {
                        // `@Full Name`, as Docs shows it; nothing for a mention of no user.
                        if let Some(name) = crate::blocknote::mentions::mentioned_name(attrs) {
                            s.push_str(&escape(&format!("@{name}")));
                        }
                    } else if kind == "interlinkingLinkInline" {
                        let doc = attrs.get("docId").and_then(PropValue::as_str).unwrap_or("");
                        self.lose(b, "interlinkingLinkInline (shown as a link)");
                        s.push_str(&format!("[{}](/docs/{}/)", escape(&title), url_escape(doc)));
                    } else {
                        self.lose(b, format!("inline element `{kind}`"));
                        s.push_str(&escape(&title));
                    }
                }
                Inline::Math { latex } => {
                    let digit_after = matches!(inline.get(i + 1), Some(Inline::Text(r))
                        if r.link.is_none() && r.text.starts_with(|c: char| c.is_ascii_digit()));
                    s.push_str(&self.inline_math(b, latex, digit_after, in_table));
                }
            }
            i += 1;
        }
        self.comment_markers(&mut s, &mut threads, &[]);
        s
    }

    /// Closes the markers of threads not on the next run and opens those of threads that
    /// start on it (an orphaned mark is not shown: Docs no longer shows it at a place).
    fn comment_markers<'a>(
        &self,
        s: &mut String,
        threads: &mut Vec<&'a str>,
        marks: &'a [crate::blocknote::tree::CommentMark],
    ) {
        if !self.opts.comments {
            return;
        }
        let on = |id: &str| marks.iter().any(|m| !m.orphan && m.thread_id == id);
        while let Some(pos) = threads.iter().rposition(|id| !on(id)) {
            s.push_str(&comment_close(threads.remove(pos)));
        }
        for mark in marks {
            if !mark.orphan
                && !mark.thread_id.is_empty()
                && !threads.contains(&mark.thread_id.as_str())
            {
                s.push_str(&comment_open(&mark.thread_id));
                threads.push(&mark.thread_id);
            }
        }
    }

    /// `$<latex>$` on one line, as BlockNote exports inline math. `$…$` holds no newline, no
    /// space next to a dollar and nothing empty, so such sources are shown trimmed, on one
    /// line, and reported; so is what would not import back as math (see
    /// [`import`](super::import)): a source ending with an escaping backslash, holding a `$`
    /// that is not `\$` or unbalanced braces, or starting with a digit right before text
    /// starting with one (`$5$0` reads as dollars).
    fn inline_math(&mut self, b: &Block, latex: &str, digit_after: bool, in_table: bool) -> String {
        let one_line = latex
            .split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if one_line != latex {
            self.lose(b, "inline math source shown on one line, trimmed");
        }
        if one_line.is_empty() {
            self.lose(b, "empty inline math");
            return String::new();
        }
        let scan = scan_latex(&one_line);
        if scan.trailing_escape
            || scan.bare_dollar
            || !scan.braces_balanced
            || (digit_after && one_line.starts_with(|c: char| c.is_ascii_digit()))
        {
            self.lose(b, "inline math that $…$ cannot hold as is");
        }
        let body = if in_table {
            one_line.replace('|', "\\|")
        } else {
            one_line
        };
        format!("${body}$")
    }

    fn run(&mut self, b: &Block, r: &TextRun, in_table: bool, dollars: bool) -> String {
        let st = &r.styles;
        if st.underline {
            self.lose(b, "underline");
        }
        if let Some(c) = &st.text_color {
            self.lose(b, format!("textColor={c}"));
        }
        if let Some(c) = &st.background_color {
            self.lose(b, format!("backgroundColor={c}"));
        }
        let body = if st.code {
            let mut ticks = "`".to_string();
            while r.text.contains(&ticks) {
                ticks.push('`');
            }
            let pad = if r.text.starts_with('`') || r.text.ends_with('`') {
                " "
            } else {
                ""
            };
            format!("{ticks}{pad}{}{pad}{ticks}", r.text)
        } else {
            let mut e = escape(&r.text);
            if dollars {
                e = e.replace('$', "\\$");
            }
            if in_table {
                e = e.replace('|', "\\|");
            }
            e
        };
        let mut open = String::new();
        if st.bold {
            open.push_str("**");
        }
        if st.italic {
            open.push('*');
        }
        if st.strike {
            open.push_str("~~");
        }
        if open.is_empty() || body.trim().is_empty() {
            return body;
        }
        let close: String = open.chars().rev().collect();
        let lead = &body[..body.len() - body.trim_start().len()];
        let trail = &body[body.trim_end().len()..];
        format!("{lead}{open}{}{close}{trail}", body.trim())
    }
}

/// What markdown math (pulldown-cmark's) makes of a LaTeX source, a backslash escaping the
/// character after it: whether its braces balance (math does not end inside an open brace
/// group), whether it holds an unescaped `$` (which would end inline math) and whether it
/// ends with an escaping backslash (which would escape the closing `$`).
struct LatexScan {
    braces_balanced: bool,
    bare_dollar: bool,
    trailing_escape: bool,
}

fn scan_latex(latex: &str) -> LatexScan {
    let mut depth = 0usize;
    let mut scan = LatexScan {
        braces_balanced: true,
        bare_dollar: false,
        trailing_escape: false,
    };
    let mut escaped = false;
    for c in latex.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '$' => scan.bare_dollar = true,
            '{' => depth += 1,
            '}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => scan.braces_balanced = false,
            },
            _ => {}
        }
    }
    scan.braces_balanced &= depth == 0;
    scan.trailing_escape = escaped;
    scan
}

/// Whether `$$\n<latex>\n$$` imports back as exactly this source: each line is paragraph
/// text that starts no other block (list, heading, quote, fence, table, break, HTML) and
/// keeps its spaces, and the math is one that markdown ends where meant.
pub(super) fn display_math_holds(latex: &str) -> bool {
    let scan = scan_latex(latex);
    let plain_line = |line: &str| {
        let starts_block = line
            .starts_with(['#', '>', '-', '+', '*', '=', '_', '<', '|', '`', '~'])
            || line.starts_with(|c: char| c.is_ascii_digit())
                && line
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .starts_with(['.', ')']);
        !line.is_empty() && line.trim() == line && !starts_block && !line.contains('|')
    };
    !scan.bare_dollar
        && !scan.trailing_escape
        && scan.braces_balanced
        && latex.split('\n').all(plain_line)
}

/// A URL as markdown's link destination writes it.
pub(crate) fn url_escape(u: &str) -> String {
    u.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

/// Escapes markdown syntax in plain text.
pub fn escape(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for (i, c) in t.chars().enumerate() {
        match c {
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '~' => {
                s.push('\\');
                s.push(c);
            }
            '#' | '-' | '+' | '=' | '|' if i == 0 => {
                s.push('\\');
                s.push(c);
            }
            _ => s.push(c),
        }
    }
    // "1. " at the start would become a list
    let digits = s.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && s[digits..].starts_with(". ") {
        s.insert(digits, '\\');
    }
    s
}
