//! The inline runs of the leaf being read (a paragraph, a heading, a cell), with the styles,
//! links and image open at that point of the markdown.

use crate::blocknote::tree::{Inline, Styles, TextRun};

#[derive(Default)]
pub(super) struct InlineState {
    pub(super) runs: Vec<Inline>,
    /// Open emphasis of each kind (nested ones count).
    pub(super) bold: u32,
    pub(super) italic: u32,
    pub(super) strike: u32,
    pub(super) links: Vec<String>,
    /// The image open (its URL and the alt text read so far).
    pub(super) image: Option<(String, String)>,
    /// The images met in this leaf: a paragraph of images only becomes image blocks.
    pub(super) images: Vec<(String, String)>,
    /// Whether the leaf holds anything but images.
    pub(super) other: bool,
    /// `$$…$$` met in this leaf: a paragraph that is only one is a math block.
    pub(super) display_math: usize,
}

impl InlineState {
    pub(super) fn styles(&self) -> Styles {
        Styles {
            bold: self.bold > 0,
            italic: self.italic > 0,
            strike: self.strike > 0,
            ..Default::default()
        }
    }

    pub(super) fn text(&mut self, t: &str, code: bool) {
        if let Some((_, alt)) = &mut self.image {
            alt.push_str(t);
            return;
        }
        if !t.trim().is_empty() {
            self.other = true;
        }
        let mut styles = self.styles();
        styles.code = code;
        self.runs.push(Inline::Text(TextRun {
            text: t.to_string(),
            styles,
            link: self.links.last().cloned(),
            comments: vec![],
        }));
    }

    pub(super) fn math(&mut self, latex: &str) {
        if let Some((_, alt)) = &mut self.image {
            alt.push_str(latex);
            return;
        }
        self.other = true;
        self.runs.push(Inline::Math {
            latex: latex.to_string(),
        });
    }
}
