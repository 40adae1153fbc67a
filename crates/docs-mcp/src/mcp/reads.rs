//! What one agent (one MCP session) last read of each block, so its rewrite of a block can be
//! rebased onto what others typed since it read it, and its find-and-replace checked against
//! it (see [`crate::edits::merge`]). Bounded: a few documents, most recently read first; the
//! oldest is forgotten.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use docs_client::blocknote::{self, Block, EditorSchema};
use uuid::Uuid;

use crate::edits::{EditOp, ReplaceText, TextBases};

/// Documents remembered per agent.
const MAX_DOCUMENTS: usize = 16;
/// Blocks remembered per document.
const MAX_BLOCKS: usize = 20_000;

/// A block's text as the agent last saw it, and the revision it read it at (`None` after the
/// agent's own write of it).
type Seen = (String, Option<String>);

#[derive(Default)]
pub struct ReadMemory {
    documents: Mutex<VecDeque<(Uuid, HashMap<String, Seen>)>>,
}

impl ReadMemory {
    /// Remembers the text of `blocks` (and of the blocks nested in them) as read at
    /// `revision`, in the markdown an instance of `schema` reads back. A block remembered as
    /// read at this same revision already is not rendered again (a revision is one state of
    /// the document: the text is the same).
    pub fn saw<'a>(
        &self,
        document: Uuid,
        revision: &str,
        blocks: impl IntoIterator<Item = &'a Block>,
        schema: EditorSchema,
    ) {
        self.with_known(document, |known| {
            for block in blocks
                .into_iter()
                .flat_map(Block::walk)
                .filter(|b| b.inline().is_some())
            {
                let read_already = known
                    .get(&block.id)
                    .is_some_and(|(_, at)| at.as_deref() == Some(revision));
                if read_already || (known.len() >= MAX_BLOCKS && !known.contains_key(&block.id)) {
                    continue;
                }
                let text = blocknote::inline_markdown_in(block, schema);
                known.insert(block.id.clone(), (text, Some(revision.to_owned())));
            }
        });
    }

    /// Remembers that the agent's rewrites in `ops` are now what it knows of those blocks.
    pub fn wrote(&self, document: Uuid, ops: &[EditOp]) {
        let texts = ops.iter().filter_map(|op| match op {
            EditOp::UpdateBlock(u) => u.text.clone().map(|t| (u.block_id.clone(), (t, None))),
            _ => None,
        });
        self.remember(document, texts);
    }

    fn remember(&self, document: Uuid, texts: impl Iterator<Item = (String, Seen)>) {
        self.with_known(document, |known| {
            for (id, text) in texts {
                if known.len() >= MAX_BLOCKS && !known.contains_key(&id) {
                    continue;
                }
                known.insert(id, text);
            }
        });
    }

    /// Runs `change` on what is known of `document`, which becomes the most recent.
    fn with_known(&self, document: Uuid, change: impl FnOnce(&mut HashMap<String, Seen>)) {
        let mut documents = self.documents.lock().expect("read memory");
        let mut known = match documents.iter().position(|(id, _)| *id == document) {
            Some(i) => documents.remove(i).expect("found above").1,
            None => HashMap::new(),
        };
        change(&mut known);
        documents.push_front((document, known));
        documents.truncate(MAX_DOCUMENTS);
    }

    /// What the agent read of the blocks whose text `ops` rewrite, or in which they replace
    /// text it read there: its last read of each, or, when it quotes a `revision`, what it read
    /// at that revision (blocks it read at another one have no base: their text at the quoted
    /// revision is not known).
    pub fn bases(&self, document: Uuid, ops: &[EditOp], revision: Option<&str>) -> TextBases {
        let documents = self.documents.lock().expect("read memory");
        let Some((_, known)) = documents.iter().find(|(id, _)| *id == document) else {
            return TextBases::new();
        };
        let at_revision = |(_, (_, read_at)): &(&String, &Seen)| {
            revision.is_none_or(|quoted| read_at.as_deref() == Some(quoted.trim()))
        };
        let mut bases = TextBases::new();
        for op in ops {
            let read: Vec<(&String, &Seen)> = match op {
                EditOp::UpdateBlock(u) if u.text.is_some() => {
                    known.get_key_value(&u.block_id).into_iter().collect()
                }
                EditOp::ReplaceText(r) => replaced_in(known, r).collect(),
                _ => continue,
            };
            bases.extend(
                read.into_iter()
                    .filter(at_revision)
                    .map(|(id, (text, _))| (id.clone(), text.clone())),
            );
        }
        bases
    }
}

/// The blocks known to hold the text a find-and-replace looks for (in its block, or in any).
fn replaced_in<'a>(
    known: &'a HashMap<String, Seen>,
    replace: &'a ReplaceText,
) -> impl Iterator<Item = (&'a String, &'a Seen)> {
    let holds = |(_, (text, _)): &(&String, &Seen)| text.contains(&replace.old_text);
    let scope: Box<dyn Iterator<Item = (&String, &Seen)>> = match &replace.block_id {
        Some(id) => Box::new(known.get_key_value(id).into_iter()),
        None => Box::new(known.iter()),
    };
    scope.filter(holds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::UpdateBlock;
    use docs_client::blocknote::tree::{BlockContent, Inline, Props, TextRun};

    fn block(id: &str, text: &str) -> Block {
        Block {
            id: id.into(),
            kind: "paragraph".into(),
            props: Props::new(),
            content: BlockContent::Inline {
                inline: vec![Inline::Text(TextRun::plain(text))],
            },
            children: vec![],
        }
    }

    fn update(id: &str) -> EditOp {
        EditOp::UpdateBlock(UpdateBlock {
            block_id: id.into(),
            text: Some("new".into()),
            block_type: None,
            props: None,
        })
    }

    #[test]
    fn the_last_read_or_write_of_a_block_is_its_base() {
        let memory = ReadMemory::default();
        let doc = Uuid::new_v4();
        memory.saw(
            doc,
            "r-1",
            &[block("a", "one"), block("b", "two")],
            EditorSchema::BASE,
        );
        assert_eq!(
            memory.bases(doc, &[update("a"), update("c")], None),
            TextBases::from([("a".to_owned(), "one".to_owned())])
        );
        assert_eq!(memory.bases(doc, &[update("a")], Some("r-1"))["a"], "one");
        // Read at r-2: its text at r-1 is not known any more.
        memory.saw(doc, "r-2", &[block("a", "one!")], EditorSchema::BASE);
        assert!(memory.bases(doc, &[update("a")], Some("r-1")).is_empty());
        memory.wrote(doc, &[update("a")]);
        assert_eq!(memory.bases(doc, &[update("a")], None)["a"], "new");
        // Read again at r-2 (the write waits for a person, the document did not change): what
        // it reads is its base again.
        memory.saw(doc, "r-2", &[block("a", "one!")], EditorSchema::BASE);
        assert_eq!(memory.bases(doc, &[update("a")], Some("r-2"))["a"], "one!");
        assert!(
            memory
                .bases(Uuid::new_v4(), &[update("a")], None)
                .is_empty()
        );
    }

    #[test]
    fn a_replacement_has_the_bases_of_the_blocks_holding_its_text() {
        let memory = ReadMemory::default();
        let doc = Uuid::new_v4();
        memory.saw(
            doc,
            "r-1",
            &[block("a", "one two"), block("b", "two"), block("c", "x")],
            EditorSchema::BASE,
        );
        let replace = |block_id: Option<&str>, all: bool| {
            EditOp::ReplaceText(ReplaceText {
                old_text: "two".into(),
                new_text: "2".into(),
                block_id: block_id.map(str::to_owned),
                all,
            })
        };
        assert_eq!(
            memory.bases(doc, &[replace(None, true)], Some("r-1")),
            TextBases::from([
                ("a".to_owned(), "one two".to_owned()),
                ("b".to_owned(), "two".to_owned())
            ])
        );
        assert_eq!(
            memory.bases(doc, &[replace(Some("b"), false)], None),
            TextBases::from([("b".to_owned(), "two".to_owned())])
        );
        assert!(
            memory
                .bases(doc, &[replace(Some("c"), false)], None)
                .is_empty()
        );
    }

    #[test]
    fn only_the_most_recent_documents_are_kept() {
        let memory = ReadMemory::default();
        let first = Uuid::new_v4();
        memory.saw(first, "r", &[block("a", "one")], EditorSchema::BASE);
        for _ in 0..MAX_DOCUMENTS {
            memory.saw(Uuid::new_v4(), "r", &[block("x", "y")], EditorSchema::BASE);
        }
        assert!(memory.bases(first, &[update("a")], None).is_empty());
    }
}
