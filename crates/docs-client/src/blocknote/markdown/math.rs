//! What markdown's math and diagram syntax reads as when content is written: `MathInput`,
//! from the instance's [`EditorSchema`] and, for a rewrite, the inline math the old content
//! held.

use crate::blocknote::schema::EditorSchema;
use crate::blocknote::tree::Inline;

/// The inline math that new content may hold, and so what markdown's math and diagram syntax
/// reads as. Built from an [`EditorSchema`] only, by [`MathInput::new_content`] and
/// [`MathInput::rewriting`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MathInput {
    /// Any: markdown makes math blocks, diagrams and inline math (the instance has them).
    Any,
    /// Only these formulas, each at most once: the inline math of the content being
    /// rewritten, kept. In markdown, a `$…$` (or `$$…$$`) holding one of them is that math
    /// again and any other is text; with none, `$` is plain text.
    Kept(Vec<String>),
}

impl MathInput {
    /// For new content: any math where the instance has it, none otherwise.
    pub(crate) fn new_content(schema: EditorSchema) -> Self {
        if schema.math_and_diagrams {
            Self::Any
        } else {
            Self::Kept(vec![])
        }
    }

    /// For content replacing `old`: any math where the instance has it, otherwise the inline
    /// math `old` holds, so a rewrite keeps it.
    pub(crate) fn rewriting(old: &[Inline], schema: EditorSchema) -> Self {
        if schema.math_and_diagrams {
            return Self::Any;
        }
        Self::Kept(
            old.iter()
                .filter_map(|piece| match piece {
                    Inline::Math { latex } => Some(latex.clone()),
                    _ => None,
                })
                .collect(),
        )
    }

    /// Whether markdown read with this reads `$` as math (a literal one is then `\$`).
    pub(crate) fn reads_dollars(&self) -> bool {
        !matches!(self, Self::Kept(kept) if kept.is_empty())
    }

    /// Whether `latex` may be inline math here; a kept formula is used up.
    pub(crate) fn take(&mut self, latex: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Kept(kept) => match kept.iter().position(|k| k == latex) {
                Some(i) => {
                    kept.remove(i);
                    true
                }
                None => false,
            },
        }
    }
}
